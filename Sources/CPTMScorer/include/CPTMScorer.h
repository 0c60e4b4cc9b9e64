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
/// in `samples`, the audio about to be decoded. Returns 1 when adapted; 0 when the model was left
/// as `trained` (too little audio, speech far above the noise, or a model of another shape).
int heed_ptm_adapt_to_noise(struct ps_decoder_s *decoder, float const *trained, short const *samples,
                            long count, heed_noise_adaptation_settings const *settings);

/// How much the quieter half of `samples` changes from one 10 ms frame to the next: the mean
/// absolute difference of the log mel spectrum, per band (natural-log units; steady noise ~0.4,
/// background talk ~0.6). -1 when there is too little audio.
double heed_noise_variability(struct ps_decoder_s *decoder, short const *samples, long count);

#endif
