// Adapting the acoustic model's Gaussians to the steady noise an utterance was heard in.
//
// The en-us model was trained on clean speech. Through noise, a frame's spectrum is speech plus
// noise, and the quiet parts of words (the s of "stop", a final t) sink under it. The front end
// takes much of the noise out, but what it leaves still makes the audio unlike anything the model
// was trained on. Here the model moves to the audio instead (parallel model combination with the
// log-add approximation, as in Gales and Young's PMC): each Gaussian's mean goes from cepstrum to
// log mel spectrum, the noise's spectrum is added to it there, and it comes back as a cepstrum.
//
// Two things make this fit PocketSphinx's features:
// - Batch cepstral mean normalization. The model's means are relative to the mean of a clean
//   utterance (x̄); the features are relative to the mean of the noisy one (ȳ). A Gaussian
//   whose mean is μ becomes log(exp(μ + x̄) + exp(n)) - ȳ. x̄ is estimated from the audio by
//   subtracting the noise frame by frame, no further than `clean_floor_db` below what was heard.
// - Three streams per codebook (cepstra, deltas, double deltas) with Gaussians of their own. A
//   delta is a difference of cepstra, so noise scales it, band by band, by the share of the
//   band's energy that is speech; the delta streams take the average share over the codebook's
//   cepstral Gaussians.
// The variances widen where the noise dominates (`uncertainty`): what the suppressor leaves of the
// noise is not steady and the speech under it is not known, and the moved means alone are too
// sure of it (pink at 6 dB: 297 -> 314 of 426 commands). Mixture weights stay as trained.
//
// Means, variances and normalizing terms are rewritten in place, from a copy the caller keeps
// (heed_ptm_copy_parameters), so every adaptation starts from the trained model and
// heed_ptm_set_parameters restores it exactly.

#include "CPTMScorer.h"
#include "ptm_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <sphinxbase/ckd_alloc.h>
#include <sphinxbase/cmd_ln.h>
#include <sphinxbase/fe.h>

#define MAX_FILTERS 64
#define MAX_CEPSTRA 32

// PocketSphinx's cepstra: a unitary DCT-II of the natural-log mel spectrum, then liftered
// (sphinxbase fe_sigproc.c: fe_dct2, fe_lifter).
typedef struct {
    int filters, cepstra;
    double cosine[MAX_CEPSTRA][MAX_FILTERS];
    double lifter[MAX_CEPSTRA];
    double liftered_cosine[MAX_CEPSTRA][MAX_FILTERS];  // cosine[i][j] * lifter[i]
} cepstral_transform_t;

static int transform_init(cepstral_transform_t *t, cmd_ln_t *config) {
    t->filters = (int)cmd_ln_int_r(config, "-nfilt");
    t->cepstra = (int)cmd_ln_int_r(config, "-ncep");
    double lifter = (double)cmd_ln_int_r(config, "-lifter");
    if (t->filters < 1 || t->filters > MAX_FILTERS || t->cepstra < 1 || t->cepstra > MAX_CEPSTRA)
        return 0;
    for (int i = 0; i < t->cepstra; ++i) {
        double scale = i == 0 ? sqrt(1.0 / t->filters) : sqrt(2.0 / t->filters);
        for (int j = 0; j < t->filters; ++j)
            t->cosine[i][j] = scale * cos(M_PI / t->filters * i * (j + 0.5));
        t->lifter[i] = lifter > 0 ? 1 + lifter / 2 * sin(i * M_PI / lifter) : 1;
        for (int j = 0; j < t->filters; ++j)
            t->liftered_cosine[i][j] = t->cosine[i][j] * t->lifter[i];
    }
    return 1;
}

// The smooth log mel spectrum a (liftered) cepstrum stands for: the DCT's rows are orthonormal,
// so its transpose inverts it as far as the kept cepstra go.
static void cepstrum_to_log_mel(cepstral_transform_t const *t, double const *cepstrum, double *log_mel) {
    // Each adaptation runs this for every Gaussian: the lifter is undone once per cepstrum, and
    // the filters are summed side by side (each in the same order as one at a time).
    double unliftered[MAX_CEPSTRA];
    for (int i = 0; i < t->cepstra; ++i)
        unliftered[i] = cepstrum[i] / t->lifter[i];
    for (int j = 0; j < t->filters; ++j)
        log_mel[j] = 0;
    for (int i = 0; i < t->cepstra; ++i)
        for (int j = 0; j < t->filters; ++j)
            log_mel[j] += unliftered[i] * t->cosine[i][j];
}

static void log_mel_to_cepstrum(cepstral_transform_t const *t, double const *log_mel, double *cepstrum) {
    for (int i = 0; i < t->cepstra; ++i) {
        double sum = 0;
        for (int j = 0; j < t->filters; ++j)
            sum += log_mel[j] * t->cosine[i][j];
        cepstrum[i] = sum * t->lifter[i];
    }
}

// The audio's log mel spectrogram (frames x filters), through a front end configured as the
// decoder's; NULL when it has fewer than `min_frames` frames or memory ran out.
static double *spectrogram(struct ps_decoder_s *decoder, cepstral_transform_t *t, short const *samples,
                           long count, int min_frames, int *frames) {
    cmd_ln_t *config = ps_get_config((ps_decoder_t *)decoder);
    if (samples == NULL || count <= 0 || !transform_init(t, config))
        return NULL;
    fe_t *fe = fe_init_auto_r(config);
    if (fe == NULL)
        return NULL;
    mfcc_t **cepstra = NULL;
    int32 n = 0;
    fe_start_utt(fe);
    int status = fe_process_utt(fe, samples, (size_t)count, &cepstra, &n);
    int width = fe_get_output_size(fe);
    fe_free(fe);
    double *log_mel = NULL;
    if (status >= 0 && cepstra != NULL && n >= min_frames && width >= t->cepstra)
        log_mel = malloc(sizeof(double) * (size_t)n * t->filters);
    if (log_mel != NULL) {
        for (int frame = 0; frame < n; ++frame) {
            double cepstrum[MAX_CEPSTRA];
            for (int i = 0; i < t->cepstra; ++i)
                cepstrum[i] = cepstra[frame][i];
            cepstrum_to_log_mel(t, cepstrum, log_mel + (size_t)frame * t->filters);
        }
        *frames = n;
    }
    if (cepstra != NULL)
        fe_free_2d(cepstra);
    return log_mel;
}

static int compare_doubles(void const *a, void const *b) {
    double x = *(double const *)a, y = *(double const *)b;
    return x < y ? -1 : x > y;
}

static double decibels_to_log(double db) { return db / 10 * log(10); }

// Each frame's mean over the filters (its level), in `levels`.
static void frame_levels(double const *log_mel, int frames, int filters, double *levels) {
    for (int frame = 0; frame < frames; ++frame) {
        double sum = 0;
        for (int j = 0; j < filters; ++j)
            sum += log_mel[(size_t)frame * filters + j];
        levels[frame] = sum / filters;
    }
}

// MARK: The trained parameters

// The adaptable parameters, in the order copies hold them: every codebook's streams' means, then
// their variances (both interleaved, as the scorer stores them), then their normalizing terms.
static long means_size(gauden_t const *g) {
    long count = 0;
    for (int stream = 0; stream < g->n_feat; ++stream)
        count += (long)g->n_mgau * g->n_density * g->featlen[stream];
    return count;
}

static long parameter_count(gauden_t const *g) {
    return 2 * means_size(g) + (long)g->n_mgau * g->n_feat * g->n_density;
}

long heed_ptm_parameter_count(struct ps_decoder_s *decoder) {
    ptm_mgau_t *s = heed_installed_scorer(decoder);
    return s == NULL ? 0 : parameter_count(s->g);
}

// Copies every codebook's streams' means, variances and normalizing terms between the model and `copy`.
static void copy_parameters(gauden_t *g, float *copy, int into_model) {
    for (int kind = 0; kind < 3; ++kind)
        for (int cb = 0; cb < g->n_mgau; ++cb)
            for (int stream = 0; stream < g->n_feat; ++stream) {
                size_t size = kind == 2 ? (size_t)g->n_density : (size_t)g->n_density * g->featlen[stream];
                mfcc_t *block = kind == 0 ? g->mean[cb][stream][0] : kind == 1 ? g->var[cb][stream][0] : g->det[cb][stream];
                if (into_model)
                    memcpy(block, copy, size * sizeof(float));
                else
                    memcpy(copy, block, size * sizeof(float));
                copy += size;
            }
}

void heed_ptm_copy_parameters(struct ps_decoder_s *decoder, float *out) {
    ptm_mgau_t *s = heed_installed_scorer(decoder);
    if (s != NULL && out != NULL)
        copy_parameters(s->g, out, 0);
}

void heed_ptm_set_parameters(struct ps_decoder_s *decoder, float const *parameters) {
    ptm_mgau_t *s = heed_installed_scorer(decoder);
    if (s != NULL && parameters != NULL)
        copy_parameters(s->g, (float *)parameters, 1);
}

// MARK: Adaptation

// What the audio says about its noise and its speech, per mel filter: the noise's level, the
// noisy utterance's mean (ȳ), and the estimated clean utterance's mean (x̄).
typedef struct {
    double noise[MAX_FILTERS], noisy_mean[MAX_FILTERS], clean_mean[MAX_FILTERS];
} noise_estimate_t;

// `lowered`: natural-log units taken off the noise estimate (the fade past the range gate).
static int estimate_noise(double const *log_mel, int frames, int filters,
                          heed_noise_adaptation_settings const *settings, double lowered, noise_estimate_t *estimate) {
    double *column = malloc(sizeof(double) * (size_t)frames);
    if (column == NULL)
        return 0;
    double floor = decibels_to_log(settings->clean_floor_db);
    int rank = (int)(settings->noise_percentile * frames);
    rank = rank < 0 ? 0 : rank >= frames ? frames - 1 : rank;
    for (int j = 0; j < filters; ++j) {
        double sum = 0;
        for (int frame = 0; frame < frames; ++frame) {
            column[frame] = log_mel[(size_t)frame * filters + j];
            sum += column[frame];
        }
        estimate->noisy_mean[j] = sum / frames;
        qsort(column, (size_t)frames, sizeof(double), compare_doubles);
        double noise = column[rank] + decibels_to_log(settings->noise_gain_db) - lowered;
        estimate->noise[j] = noise;
        double clean_sum = 0;
        for (int frame = 0; frame < frames; ++frame) {
            double heard = log_mel[(size_t)frame * filters + j];
            // Spectral subtraction in the log domain, floored: log(exp(heard) - exp(noise)).
            double clean = heard - floor;
            if (heard > noise) {
                double subtracted = heard + log1p(-exp(noise - heard));
                if (subtracted > clean)
                    clean = subtracted;
            }
            clean_sum += clean;
        }
        estimate->clean_mean[j] = clean_sum / frames;
    }
    free(column);
    return 1;
}

// How much a frame's log mel spectrum can stray from the model's mean in a band that noise
// dominates, on top of the trained variance: what the suppressor leaves of the noise is not
// steady, and the speech under it is not known. The delta streams are differences of frames, so
// their uncertainty is that of two (deltas) or four (double deltas) frames.
static double const stream_uncertainty_factor[3] = {1, 2, 4};

// The variance each cepstral dimension gains where `noise_share` (per mel band) dominates: the
// squared uncertainty carried through the liftered DCT, times `factor`.
static void added_variances(cepstral_transform_t const *t, double const *noise_share, double factor, double *added) {
    for (int dim = 0; dim < t->cepstra; ++dim) {
        double sum = 0;
        if (factor > 0) {
            for (int j = 0; j < t->filters; ++j) {
                double weight = t->liftered_cosine[dim][j] * noise_share[j];
                sum += weight * weight;
            }
            sum *= factor;
        }
        added[dim] = sum;
    }
}

static void adapt_gaussians(ptm_mgau_t *s, cepstral_transform_t const *t, noise_estimate_t const *estimate,
                            float const *trained, double uncertainty) {
    gauden_t *g = s->g;
    int filters = t->filters;
    long variances_at = means_size(g), dets_at = 2 * means_size(g);
    // The stored variance term is 1 / (2 sigma^2) in the decoder's log base; the normalizing
    // term is a sum of log(1 / sqrt(2 pi sigma^2)) in that base.
    double ln_base = log(logmath_get_base(g->lmath));
    long at = 0, det_at = 0;
    for (int cb = 0; cb < g->n_mgau; ++cb) {
        double speech_share[MAX_FILTERS] = {0};
        for (int stream = 0; stream < g->n_feat; ++stream) {
            int featlen = g->featlen[stream];
            float const *source = trained + at;
            float const *source_var = trained + variances_at + at;
            float const *source_det = trained + dets_at + det_at;
            mfcc_t *target = g->mean[cb][stream][0];
            mfcc_t *target_var = g->var[cb][stream][0];
            mfcc_t *target_det = g->det[cb][stream];
            double factor = stream_uncertainty_factor[stream < 3 ? stream : 2] * uncertainty * uncertainty;
            // The delta streams take the codebook's average noise share: the same for all their Gaussians.
            double delta_added[MAX_CEPSTRA];
            if (stream > 0) {
                double noise_share[MAX_FILTERS];
                for (int j = 0; j < filters; ++j)
                    noise_share[j] = 1 - speech_share[j];
                added_variances(t, noise_share, factor, delta_added);
            }
            for (int cw = 0; cw < g->n_density; ++cw) {
                double mean[MAX_CEPSTRA], log_mel[MAX_FILTERS], adapted[MAX_CEPSTRA], noise_share[MAX_FILTERS];
                double own_added[MAX_CEPSTRA];
                for (int dim = 0; dim < featlen; ++dim)
                    mean[dim] = source[interleaved_index(cw, dim, featlen)];
                cepstrum_to_log_mel(t, mean, log_mel);
                for (int j = 0; j < filters; ++j) {
                    if (stream == 0) {
                        double clean = log_mel[j] + estimate->clean_mean[j], noise = estimate->noise[j];
                        double top = clean > noise ? clean : noise;
                        double noisy = top + log(exp(clean - top) + exp(noise - top));
                        double share = exp(clean - noisy);
                        speech_share[j] += share / g->n_density;
                        noise_share[j] = 1 - share;
                        log_mel[j] = noisy - estimate->noisy_mean[j];
                    } else {
                        log_mel[j] *= speech_share[j];
                    }
                }
                log_mel_to_cepstrum(t, log_mel, adapted);
                double const *added = delta_added;
                if (stream == 0) {
                    added_variances(t, noise_share, factor, own_added);
                    added = own_added;
                }
                double det = source_det[cw];
                for (int dim = 0; dim < featlen; ++dim) {
                    size_t index = interleaved_index(cw, dim, featlen);
                    target[index] = (mfcc_t)adapted[dim];
                    double stored = source_var[index];
                    // sigma'^2 / sigma^2, with sigma^2 = 1 / (2 stored ln_base).
                    double ratio = 1 + added[dim] * 2 * stored * ln_base;
                    target_var[index] = (mfcc_t)(stored / ratio);
                    det -= 0.5 * log(ratio) / ln_base;
                }
                target_det[cw] = (mfcc_t)det;
            }
            at += (long)g->n_density * featlen;
            det_at += g->n_density;
        }
    }
}

int heed_ptm_adapt_to_noise(struct ps_decoder_s *decoder, float const *trained, short const *samples, long count,
                            heed_noise_adaptation_settings const *settings) {
    ptm_mgau_t *s = heed_installed_scorer(decoder);
    if (s == NULL || trained == NULL || settings == NULL)
        return 0;
    gauden_t *g = s->g;
    cepstral_transform_t t;
    int frames = 0;
    // Cepstra, deltas and double deltas of the same length: PocketSphinx's 1s_c_d_dd features.
    double *log_mel = spectrogram(decoder, &t, samples, count, 10, &frames);
    if (log_mel == NULL) {
        heed_ptm_set_parameters(decoder, trained);
        return 0;
    }
    int shaped = g->n_feat == 3;
    for (int stream = 0; stream < g->n_feat; ++stream)
        shaped = shaped && g->featlen[stream] == t.cepstra;
    double *levels = malloc(sizeof(double) * (size_t)frames);
    noise_estimate_t estimate;
    int adapted = 0;
    if (shaped && levels != NULL) {
        frame_levels(log_mel, frames, t.filters, levels);
        qsort(levels, (size_t)frames, sizeof(double), compare_doubles);
        double range = levels[frames * 9 / 10] - levels[frames / 10];
        // Speech far above the noise gains nothing here and loses a little (BENCHMARKS.md). Past
        // the gate the adaptation fades out instead of stopping: over `range_fade_db` the noise
        // is taken as lower by twice the excess, so the model moves less as the speech rises.
        double excess = range - decibels_to_log(settings->max_speech_range_db);
        if (excess <= decibels_to_log(settings->range_fade_db) &&
            estimate_noise(log_mel, frames, t.filters, settings, excess > 0 ? 2 * excess : 0, &estimate)) {
            adapt_gaussians(s, &t, &estimate, trained, settings->uncertainty);
            adapted = 1;
        }
    }
    // adapt_gaussians writes every parameter from `trained`; only a model left as it was needs them copied.
    if (!adapted)
        heed_ptm_set_parameters(decoder, trained);
    free(levels);
    free(log_mel);
    return adapted;
}

double heed_noise_variability(struct ps_decoder_s *decoder, short const *samples, long count, double quietest) {
    cepstral_transform_t t;
    int frames = 0;
    double *log_mel = spectrogram(decoder, &t, samples, count, 10, &frames);
    if (log_mel == NULL)
        return -1;
    double *levels = malloc(sizeof(double) * (size_t)frames), *sorted = malloc(sizeof(double) * (size_t)frames);
    double variability = -1;
    if (levels != NULL && sorted != NULL) {
        frame_levels(log_mel, frames, t.filters, levels);
        memcpy(sorted, levels, sizeof(double) * (size_t)frames);
        qsort(sorted, (size_t)frames, sizeof(double), compare_doubles);
        int rank = (int)(quietest * frames);
        double threshold = sorted[rank < 0 ? 0 : rank >= frames ? frames - 1 : rank], change = 0;
        int pairs = 0;
        for (int frame = 1; frame < frames; ++frame) {
            if (levels[frame] > threshold || levels[frame - 1] > threshold)
                continue;
            double sum = 0;
            for (int j = 0; j < t.filters; ++j)
                sum += fabs(log_mel[(size_t)frame * t.filters + j] - log_mel[(size_t)(frame - 1) * t.filters + j]);
            change += sum / t.filters;
            ++pairs;
        }
        if (pairs > 0)
            variability = change / pairs;
    }
    free(levels);
    free(sorted);
    free(log_mel);
    return variability;
}
