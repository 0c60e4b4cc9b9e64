// Adapting the acoustic model's Gaussians to one speaker, from a few phrases of known text.
//
// The en-us model's vowels are General American ones. A speaker whose vowels sit elsewhere (a
// British "start" or "stop") fits every Gaussian of the phone a little worse, and in noise that
// is the difference between two commands. Enrollment moves each phone's codebook towards the
// speaker: the frames of known phrases are aligned to their phones, and every Gaussian of a
// phone's codebook is shifted by one vector, the precision-weighted mean of how far that phone's
// frames lie from the Gaussians that explain them (a bias-only MLLR with one regression class per
// phone, with a MAP prior that keeps phones seen in few frames close to where they were).
//
// The frames are the decoder's own features (cepstra, deltas and double deltas after cepstral
// mean normalization), recorded while the phrase is decoded, so enrollment sees exactly what
// recognition will. Silence and filler codebooks are never shifted: what a room sounds like
// between words is the noise adaptation's business, not the speaker's.
//
// Alignment is a Viterbi pass over the phrase's phones, three states each (the model's topology,
// so a phone lasts at least three frames), with optional silence between words. A state's score is
// its codebook's best Gaussian per stream; PTM senones share their phone's codebook, so this is the
// codebook the decoder would score the frame with.

#include "CPTMScorer.h"
#include "ptm_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// Exported by libpocketsphinx (bin_mdef.h, not installed).
extern int bin_mdef_ciphone_id(void *mdef, char const *ciphone);
extern char const *bin_mdef_ciphone_str(void *mdef, int ci);

#define STATES_PER_PHONE 3

// MARK: Recording the decoder's features

static int total_dimensions(gauden_t const *g) {
    int total = 0;
    for (int stream = 0; stream < g->n_feat; ++stream)
        total += g->featlen[stream];
    return total;
}

int heed_ptm_feature_dimensions(struct ps_decoder_s *decoder) {
    ptm_mgau_t *s = heed_installed_scorer(decoder);
    return s == NULL ? 0 : total_dimensions(s->g);
}

int heed_ptm_begin_recording(struct ps_decoder_s *decoder) {
    ptm_mgau_t *s = heed_installed_scorer(decoder);
    if (s == NULL)
        return 0;
    heed_frame_rows_start(&heed_scorer_state(s)->recording, sizeof(float) * (size_t)total_dimensions(s->g));
    return 1;
}

void heed_ptm_record_frame(ptm_mgau_t *s, mfcc_t **features, int frame) {
    float *row = heed_frame_row(&heed_scorer_state(s)->recording, frame);
    if (row == NULL)
        return;
    for (int stream = 0, at = 0; stream < s->g->n_feat; at += s->g->featlen[stream], ++stream)
        memcpy(row + at, features[stream], sizeof(float) * (size_t)s->g->featlen[stream]);
}

long heed_ptm_end_recording(struct ps_decoder_s *decoder, float *out, long capacity) {
    heed_scorer_state_t *state = heed_decoder_scorer_state(decoder);
    // Freed at once: a recording is an enrollment's, rare and long.
    return state == NULL ? 0 : heed_frame_rows_take(&state->recording, out, capacity, 1);
}

// MARK: Alignment

// Log-likelihood (natural log) of `frame` under Gaussian `cw` of codebook `cb`, stream `stream`.
static double gaussian_log_likelihood(gauden_t const *g, int cb, int stream, int cw, float const *x, double ln_base) {
    int featlen = g->featlen[stream];
    mfcc_t const *mean = g->mean[cb][stream][0], *var = g->var[cb][stream][0];
    double score = g->det[cb][stream][cw];
    for (int dim = 0; dim < featlen; ++dim) {
        size_t index = interleaved_index(cw, dim, featlen);
        double diff = x[dim] - mean[index];
        score -= diff * diff * var[index];
    }
    return score * ln_base;
}

// The codebook's fit to a frame: the best Gaussian of each stream, summed over the streams.
static double codebook_score(gauden_t const *g, int cb, float const *frame, double ln_base) {
    double total = 0;
    for (int stream = 0, at = 0; stream < g->n_feat; at += g->featlen[stream], ++stream) {
        double best = -INFINITY;
        for (int cw = 0; cw < g->n_density; ++cw) {
            double score = gaussian_log_likelihood(g, cb, stream, cw, frame + at, ln_base);
            if (score > best)
                best = score;
        }
        total += best;
    }
    return total;
}

// Viterbi over the states of `codebooks` (STATES_PER_PHONE per phone; `optional` phones may be
// skipped), with `fits` each frame's score under every codebook (frames x n_mgau). Fills `aligned`
// with each frame's phone index. Returns 0 when no path fits the frames.
static int align(int n_mgau, double const *fits, long frames, int const *codebooks,
                 unsigned char const *optional, int phones, int *aligned, double *path_score) {
    int states = phones * STATES_PER_PHONE;
    double *score = malloc(sizeof(double) * (size_t)states), *next = malloc(sizeof(double) * (size_t)states);
    int *back = malloc(sizeof(int) * (size_t)states * frames);
    int ok = score && next && back;
    if (ok) {
        for (int j = 0; j < states; ++j)
            score[j] = -INFINITY;
        // A path may start in the first phone or past any optional phones that lead.
        for (int p = 0; p < phones; ++p) {
            score[p * STATES_PER_PHONE] = 0;
            if (!optional[p])
                break;
        }
        for (long t = 0; t < frames; ++t) {
            double const *fit = fits + (size_t)t * n_mgau;
            for (int j = 0; j < states; ++j) {
                int p = j / STATES_PER_PHONE;
                double best = score[j];
                int from = j;
                if (t > 0) {
                    if (j > 0 && score[j - 1] > best) {
                        best = score[j - 1];
                        from = j - 1;
                    }
                    // Into a phone's first state from the last state of the phone before any
                    // optional phones just before it.
                    if (j % STATES_PER_PHONE == 0)
                        for (int q = p - 1; q > 0 && optional[q]; --q) {
                            int last = q * STATES_PER_PHONE - 1;
                            if (score[last] > best) {
                                best = score[last];
                                from = last;
                            }
                        }
                } else if (best == -INFINITY) {
                    from = -1;
                }
                next[j] = best == -INFINITY ? -INFINITY : best + fit[codebooks[p]];
                back[(size_t)t * states + j] = from;
            }
            memcpy(score, next, sizeof(double) * (size_t)states);
        }
        // End in the last phone, or before any optional phones that trail.
        int end = -1;
        double best = -INFINITY;
        for (int p = phones - 1; p >= 0; --p) {
            int last = (p + 1) * STATES_PER_PHONE - 1;
            if (score[last] > best) {
                best = score[last];
                end = last;
            }
            if (!optional[p])
                break;
        }
        ok = end >= 0 && best > -INFINITY;
        *path_score = best;
        for (long t = frames - 1; ok && t >= 0; --t) {
            aligned[t] = end / STATES_PER_PHONE;
            end = back[(size_t)t * states + end];
            if (end < 0 && t > 0)
                ok = 0;
        }
    }
    free(score);
    free(next);
    free(back);
    return ok;
}

// A PTM model has one codebook per context-independent phone, numbered as the phones are; -1
// when `phone` is not one of the model's or the model is not laid out that way.
static int phone_codebook(ptm_mgau_t const *s, void *mdef, char const *phone) {
    int cb = bin_mdef_ciphone_id(mdef, phone);
    if (cb < 0 || cb >= s->g->n_mgau || cb * STATES_PER_PHONE >= s->n_sen || s->sen2cb[cb * STATES_PER_PHONE] != cb)
        return -1;
    return cb;
}

int heed_ptm_phone_codebook(struct ps_decoder_s *decoder, char const *phone) {
    ptm_mgau_t *s = heed_installed_scorer(decoder);
    return s == NULL ? -1 : phone_codebook(s, ((decoder_prefix_t *)decoder)->acmod->mdef, phone);
}

// MARK: Statistics

long heed_ptm_speaker_statistics_count(struct ps_decoder_s *decoder) {
    ptm_mgau_t *s = heed_installed_scorer(decoder);
    return s == NULL ? 0 : (long)s->g->n_mgau * (2L * total_dimensions(s->g) + 1);
}

long heed_ptm_speaker_shift_count(struct ps_decoder_s *decoder) {
    ptm_mgau_t *s = heed_installed_scorer(decoder);
    return s == NULL ? 0 : (long)s->g->n_mgau * total_dimensions(s->g);
}

// Statistics layout, per codebook: `dimensions` numerators (sum of posterior x precision x (frame -
// mean)), `dimensions` denominators (sum of posterior x precision), then the frame count.
// Every codebook's score for every frame (frames x n_mgau), computed once for the alignment and
// for the yardstick it is judged by.
static double *codebook_scores(gauden_t const *g, float const *features, long frames, int dimensions, double ln_base) {
    double *fits = malloc(sizeof(double) * (size_t)frames * g->n_mgau);
    if (fits != NULL)
        for (long t = 0; t < frames; ++t)
            for (int cb = 0; cb < g->n_mgau; ++cb)
                fits[(size_t)t * g->n_mgau + cb] = codebook_score(g, cb, features + (size_t)t * dimensions, ln_base);
    return fits;
}

// The best any sequence of the model's phones could fit the frames (each frame its best codebook,
// durations ignored): the yardstick for how well the alignment to the words fits.
static double free_score(double const *fits, long frames, int n_mgau) {
    double total = 0;
    for (long t = 0; t < frames; ++t) {
        double best = -INFINITY;
        for (int cb = 0; cb < n_mgau; ++cb)
            if (fits[(size_t)t * n_mgau + cb] > best)
                best = fits[(size_t)t * n_mgau + cb];
        total += best;
    }
    return total;
}

long heed_ptm_accumulate_speaker(struct ps_decoder_s *decoder, double *statistics, float const *features,
                                 long frames, char const *const *phones, unsigned char const *optional, int count,
                                 double max_shortfall, float const *applied_shifts, heed_speaker_fit *fit) {
    ptm_mgau_t *s = heed_installed_scorer(decoder);
    if (s == NULL || features == NULL || count < 1)
        return HEED_SPEAKER_UNSUPPORTED;
    gauden_t *g = s->g;
    void *mdef = ((decoder_prefix_t *)decoder)->acmod->mdef;
    int dimensions = total_dimensions(g);
    int *codebooks = malloc(sizeof(int) * (size_t)count);
    int *aligned = malloc(sizeof(int) * (size_t)(frames > 0 ? frames : 1));
    double *posterior = malloc(sizeof(double) * (size_t)g->n_density);
    double *fits = NULL;
    long result = HEED_SPEAKER_UNSUPPORTED;
    if (codebooks == NULL || aligned == NULL || posterior == NULL)
        goto done;
    for (int p = 0; p < count; ++p) {
        codebooks[p] = phone_codebook(s, mdef, phones[p]);
        if (codebooks[p] < 0) {
            result = HEED_SPEAKER_UNKNOWN_PHONE - p;
            goto done;
        }
    }
    double ln_base = log(logmath_get_base(g->lmath));
    int required = 0;  // phones that cannot be skipped: each takes at least STATES_PER_PHONE frames
    for (int p = 0; p < count; ++p)
        required += !optional[p];
    double path_score = 0;
    if (frames < (long)required * STATES_PER_PHONE ||
        (fits = codebook_scores(g, features, frames, dimensions, ln_base)) == NULL ||
        !align(g->n_mgau, fits, frames, codebooks, optional, count, aligned, &path_score)) {
        result = HEED_SPEAKER_NO_ALIGNMENT;
        goto done;
    }
    fit->log_likelihood = path_score / frames;
    fit->shortfall = free_score(fits, frames, g->n_mgau) / frames - fit->log_likelihood;
    if (fit->shortfall > max_shortfall) {
        result = HEED_SPEAKER_MISMATCH;
        goto done;
    }
    long used = 0;
    for (long t = 0; t < frames; ++t) {
        int p = aligned[t];
        if (optional[p])
            continue;  // silence: not the speaker's
        int cb = codebooks[p];
        double *numerator = statistics + (size_t)cb * (2 * dimensions + 1);
        double *denominator = numerator + dimensions;
        float const *frame = features + (size_t)t * dimensions;
        float const *shift = applied_shifts == NULL ? NULL : applied_shifts + (size_t)cb * dimensions;
        for (int stream = 0, at = 0; stream < g->n_feat; at += g->featlen[stream], ++stream) {
            int featlen = g->featlen[stream];
            double best = -INFINITY, sum = 0;
            for (int cw = 0; cw < g->n_density; ++cw) {
                posterior[cw] = gaussian_log_likelihood(g, cb, stream, cw, frame + at, ln_base);
                if (posterior[cw] > best)
                    best = posterior[cw];
            }
            for (int cw = 0; cw < g->n_density; ++cw)
                sum += posterior[cw] = exp(posterior[cw] - best);
            mfcc_t const *mean = g->mean[cb][stream][0], *var = g->var[cb][stream][0];
            for (int cw = 0; cw < g->n_density; ++cw) {
                double gamma = posterior[cw] / sum;
                if (gamma < 1e-4)
                    continue;
                for (int dim = 0; dim < featlen; ++dim) {
                    size_t index = interleaved_index(cw, dim, featlen);
                    double precision = var[index];  // proportional to 1 / sigma^2
                    // Measured from the mean as trained: the shifted mean less its shift.
                    double trained = mean[index] - (shift == NULL ? 0 : shift[at + dim]);
                    numerator[at + dim] += gamma * precision * (frame[at + dim] - trained);
                    denominator[at + dim] += gamma * precision;
                }
            }
        }
        numerator[2 * dimensions] += 1;
        ++used;
    }
    result = used;
done:
    free(codebooks);
    free(aligned);
    free(posterior);
    free(fits);
    return result;
}

// Whether codebook `cb` is a speech phone's. Silence and fillers ("SIL", "+NSN+", ...) are the
// room's: never shifted.
static int heed_is_speech_codebook(void *mdef, int cb) {
    char const *name = bin_mdef_ciphone_str(mdef, cb);
    return name != NULL && strcmp(name, "SIL") != 0 && name[0] != '+';
}

void heed_ptm_speaker_shifts(struct ps_decoder_s *decoder, double const *statistics, double prior_frames,
                             double global_prior_frames, float *shifts) {
    ptm_mgau_t *s = heed_installed_scorer(decoder);
    if (s == NULL)
        return;
    gauden_t *g = s->g;
    void *mdef = ((decoder_prefix_t *)decoder)->acmod->mdef;
    int dimensions = total_dimensions(g);
    // What is common to all of the speaker's phones (the precision-weighted mean of every speech
    // frame's distance), pulled towards none by its own prior: a phone heard in few frames, or
    // none, moves this far. Without it, a phone heard and shifted fits the speaker better than
    // all the phones not yet heard, and wins their frames too ("pause" heard as "start" after
    // one "start" was learned).
    double *global = calloc((size_t)dimensions, sizeof(double));
    double *pooled = calloc((size_t)dimensions, sizeof(double));
    if (global == NULL || pooled == NULL) {
        free(global);
        free(pooled);
        memset(shifts, 0, sizeof(float) * (size_t)g->n_mgau * dimensions);
        return;
    }
    double frames = 0;
    if (global_prior_frames >= 0) {
        for (int cb = 0; cb < g->n_mgau; ++cb) {
            if (!heed_is_speech_codebook(mdef, cb))
                continue;
            double const *numerator = statistics + (size_t)cb * (2 * dimensions + 1);
            for (int d = 0; d < dimensions; ++d) {
                global[d] += numerator[d];
                pooled[d] += numerator[dimensions + d];
            }
            frames += numerator[2 * dimensions];
        }
        for (int d = 0; d < dimensions; ++d)
            global[d] = pooled[d] > 0 ? global[d] / pooled[d] * frames / (frames + global_prior_frames) : 0;
    }
    for (int cb = 0; cb < g->n_mgau; ++cb) {
        double const *numerator = statistics + (size_t)cb * (2 * dimensions + 1);
        double const *denominator = numerator + dimensions;
        int speech = heed_is_speech_codebook(mdef, cb);
        double seen = numerator[2 * dimensions];
        for (int d = 0; d < dimensions; ++d) {
            // Where the phone's frames say its Gaussians should be, pulled towards the speaker-wide
            // shift by a prior worth `prior_frames` frames.
            double own = denominator[d] > 0 ? numerator[d] / denominator[d] : 0;
            shifts[(size_t)cb * dimensions + d] = speech ? (float)((own * seen + global[d] * prior_frames) / (seen + prior_frames)) : 0;
        }
    }
    free(global);
    free(pooled);
}

unsigned long long heed_ptm_model_fingerprint(struct ps_decoder_s *decoder) {
    ptm_mgau_t *s = heed_installed_scorer(decoder);
    if (s == NULL)
        return 0;
    gauden_t *g = s->g;
    unsigned long long hash = 0xcbf29ce484222325ULL;  // FNV-1a, 64-bit
    for (int cb = 0; cb < g->n_mgau; ++cb)
        for (int stream = 0; stream < g->n_feat; ++stream)
            for (int kind = 0; kind < 2; ++kind) {
                unsigned char const *bytes = (unsigned char const *)(kind == 0 ? g->mean[cb][stream][0] : g->var[cb][stream][0]);
                size_t size = (size_t)g->n_density * g->featlen[stream] * sizeof(mfcc_t);
                for (size_t i = 0; i < size; ++i)
                    hash = (hash ^ bytes[i]) * 0x100000001b3ULL;
            }
    return hash;
}

void heed_ptm_shift_means(struct ps_decoder_s *decoder, float const *shifts) {
    ptm_mgau_t *s = heed_installed_scorer(decoder);
    if (s == NULL || shifts == NULL)
        return;
    gauden_t *g = s->g;
    int dimensions = total_dimensions(g);
    for (int cb = 0; cb < g->n_mgau; ++cb)
        for (int stream = 0, at = 0; stream < g->n_feat; at += g->featlen[stream], ++stream) {
            int featlen = g->featlen[stream];
            mfcc_t *mean = g->mean[cb][stream][0];
            for (int cw = 0; cw < g->n_density; ++cw)
                for (int dim = 0; dim < featlen; ++dim)
                    mean[interleaved_index(cw, dim, featlen)] += shifts[(size_t)cb * dimensions + at + dim];
        }
}
