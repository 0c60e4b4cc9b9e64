// A faster Gaussian evaluation for PocketSphinx's phonetically-tied mixture (PTM) models, the kind
// Debian's en-us model is, and the adaptation of its Gaussians to noise. Swift calls only these
// functions; PocketSphinx's internals stay in ptm_internal.h, ptm_scorer.c and noise_adaptation.c.
#ifndef HEED_PTM_SCORER_H
#define HEED_PTM_SCORER_H

struct ps_decoder_s;

/// Replaces the decoder's acoustic scorer with one that evaluates several Gaussians per
/// instruction. The scores are the same, bit for bit: each Gaussian's terms are summed in
/// PocketSphinx's order, only side by side with its neighbours'.
///
/// Returns 1 when installed (or already installed), 0 when the decoder's model is not a PTM
/// model or its shape is not one this scorer handles; then nothing was changed.
int heed_ptm_scorer_install(struct ps_decoder_s *decoder);

/// 1 when `decoder` scores frames with this scorer.
int heed_ptm_scorer_is_installed(struct ps_decoder_s *decoder);

/// How heed_ptm_adapt_to_noise estimates an utterance's noise and the clean speech under it
/// (see noise_adaptation.c).
typedef struct {
    /// A mel band's noise is its level in this fraction of the quietest frames (0..1).
    double noise_percentile;
    /// ... raised by this many dB.
    double noise_gain_db;
    /// A frame's clean level is taken no further than this below what was heard.
    double clean_floor_db;
    /// Adapt in full only when the loudest tenth of frames is within this many dB of the quietest tenth.
    double max_speech_range_db;
    /// Past that, adapt for this many dB more of range, to the noise lowered by twice the excess
    /// (0: not at all past the gate).
    double range_fade_db;
    /// How far (natural-log units) a frame may stray from a Gaussian's mean in the mel bands
    /// noise dominates, added to the trained variances (0: variances stay as trained).
    double uncertainty;
} heed_noise_adaptation_settings;

/// How many floats the parameters noise adaptation changes take: the Gaussians' means, variances
/// and normalizing terms (0 when the scorer is not installed).
long heed_ptm_parameter_count(struct ps_decoder_s *decoder);

/// Copies those parameters into `out` (heed_ptm_parameter_count floats).
void heed_ptm_copy_parameters(struct ps_decoder_s *decoder, float *out);

/// Sets those parameters from `parameters`, a copy made by heed_ptm_copy_parameters.
void heed_ptm_set_parameters(struct ps_decoder_s *decoder, float const *parameters);

/// Sets the model's Gaussians to `trained` (a copy made by heed_ptm_copy_parameters) adapted to the noise
/// in `samples`, the audio about to be decoded. Returns 1 when adapted; 0 when the model was left as
/// `trained` (too little audio, speech far above the noise, or a model of another shape).
int heed_ptm_adapt_to_noise(struct ps_decoder_s *decoder, float const *trained, short const *samples,
                            long count, heed_noise_adaptation_settings const *settings);

/// How much the `quietest` share of `samples`' frames (by level) changes from one 10 ms frame to
/// the next: the mean absolute difference of the log mel spectrum, per band, over pairs of such
/// frames (natural-log units; over the quietest tenth, steady noise ~0.2-0.5, background talk
/// ~0.6-1.0). -1 when there is too little audio, or no two neighbouring frames among that share.
double heed_noise_variability(struct ps_decoder_s *decoder, short const *samples, long count, double quietest);

/// Starts keeping, for each frame `decoder` scores from frame 0 of the next utterance, what was
/// taken off its scores to make them relative (see ptm_scorer.c). Returns 0
/// when the scorer is not installed.
int heed_ptm_begin_score_offsets(struct ps_decoder_s *decoder);

/// Stops keeping them; copies at most `capacity` frames' offsets into `out` and returns how many
/// it copied. A path's acoustic score minus its frames' offsets is on the model's own
/// scale, comparable between searches.
long heed_ptm_end_score_offsets(struct ps_decoder_s *decoder, int *out, long capacity);

/// Keeps each frame's codebook search from frame 0 of the next utterance on, for a second decode
/// of the same samples (heed_ptm_reuse_codebooks); stops reusing. Returns 0 when the scorer is
/// not installed.
int heed_ptm_keep_codebooks(struct ps_decoder_s *decoder);

/// The next utterance decodes the very samples (and model) of the one that kept its codebooks:
/// it starts from their search and searches only what that one did not. Returns 0 when nothing
/// was kept. Scores are unchanged.
int heed_ptm_reuse_codebooks(struct ps_decoder_s *decoder);

/// Neither keeps nor reuses from the next utterance on.
void heed_ptm_forget_codebooks(struct ps_decoder_s *decoder);

// MARK: Speaker adaptation (speaker_adaptation.c)

/// How many feature values a frame has (all streams), 0 when the scorer is not installed.
int heed_ptm_feature_dimensions(struct ps_decoder_s *decoder);

/// Starts recording the features of the frames `decoder` scores, from frame 0 of the next
/// utterance. Returns 0 when the scorer is not installed.
int heed_ptm_begin_recording(struct ps_decoder_s *decoder);

/// Stops recording; copies the first frames recorded, at most `capacity` of them
/// (heed_ptm_feature_dimensions floats each), into `out`. Returns how many frames were recorded.
long heed_ptm_end_recording(struct ps_decoder_s *decoder, float *out, long capacity);

/// The codebook of a context-independent phone ("AA", "SIL"), -1 when the model has no such phone.
int heed_ptm_phone_codebook(struct ps_decoder_s *decoder, char const *phone);

/// Doubles heed_ptm_accumulate_speaker adds to; 0 when the scorer is not installed.
long heed_ptm_speaker_statistics_count(struct ps_decoder_s *decoder);
/// Floats a speaker's shifts take (one per codebook and feature dimension).
long heed_ptm_speaker_shift_count(struct ps_decoder_s *decoder);

#define HEED_SPEAKER_UNSUPPORTED (-1)
#define HEED_SPEAKER_NO_ALIGNMENT (-2)
#define HEED_SPEAKER_MISMATCH (-3)
/// heed_ptm_accumulate_speaker returns HEED_SPEAKER_UNKNOWN_PHONE - i when phones[i] is not a phone of the model.
#define HEED_SPEAKER_UNKNOWN_PHONE (-1000)

/// How well a recording's frames fit the phones of its words (natural log per frame).
typedef struct {
    /// The best alignment's log-likelihood (each frame's best Gaussian per stream).
    double log_likelihood;
    /// How far that falls short of the best any phones could do, frame by frame.
    double shortfall;
} heed_speaker_fit;

/// Aligns `frames` recorded frames to `phones` (`optional[i]` nonzero: phones[i] is a silence
/// that may be skipped), sets `fit`, and adds what the frames say about the speaker to
/// `statistics`. Past `max_shortfall` the phones are not what was said, and nothing is added
/// (HEED_SPEAKER_MISMATCH). Returns the number of speech frames used, or a HEED_SPEAKER_ error.
/// `applied_shifts`: the speaker shifts the model's means carry now (NULL: none); the statistics
/// stay relative to the means without them, so a speaker goes on being learned while decoded.
long heed_ptm_accumulate_speaker(struct ps_decoder_s *decoder, double *statistics, float const *features,
                                 long frames, char const *const *phones, unsigned char const *optional, int count,
                                 double max_shortfall, float const *applied_shifts, heed_speaker_fit *fit);

/// The shift of each codebook's means the statistics call for (heed_ptm_speaker_shift_count floats
/// into `shifts`), pulled by a prior worth `prior_frames` frames towards the speaker-wide shift of
/// all speech phones together, itself pulled towards none by `global_prior_frames` (negative: no
/// speaker-wide shift, each phone pulled towards none). Silence and fillers are never shifted.
void heed_ptm_speaker_shifts(struct ps_decoder_s *decoder, double const *statistics, double prior_frames,
                             double global_prior_frames, float *shifts);

/// A hash of the model's means and variances as they are now (0 when the scorer is not
/// installed): a profile records the trained model's, and is applied only to that model.
unsigned long long heed_ptm_model_fingerprint(struct ps_decoder_s *decoder);

/// Adds `shifts` to every Gaussian mean of each codebook.
void heed_ptm_shift_means(struct ps_decoder_s *decoder, float const *shifts);

#endif
