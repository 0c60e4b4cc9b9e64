// Gaussian evaluation for PocketSphinx 5prealpha's PTM acoustic models, side by side.
//
// Half of Heed's decoding time is spent in ptm_mgau_frame_eval, and most of that in its search
// of each codebook for the best Gaussians: 42 codebooks x 3 streams x 128 Gaussians x 13
// dimensions per frame, one Gaussian at a time. Here the Gaussians of a codebook are stored
// interleaved, LANES at a time, so one vector instruction advances LANES Gaussians by one
// dimension. Each Gaussian's sum is still taken in PocketSphinx's order, so every score is the
// same float, and the decoder's results are unchanged bit for bit.
//
// PocketSphinx exports no API for this. ptm_internal.h has copies of the beginnings of its
// internal structures (pocketsphinx_internal.h, acmod.h, ptm_mgau.h, ms_gauden.h of 5prealpha,
// the version Debian ships). heed_ptm_scorer_install checks that the decoder's scorer really is
// ptm_mgau_frame_eval before touching anything, so a model of another kind is left alone.
//
// The evaluation follows ptm_mgau.c (Copyright (c) 2010 Carnegie Mellon University, BSD-style
// licence): eval_topn, eval_cb, ptm_mgau_codebook_norm, ptm_mgau_calc_cb_active and
// ptm_mgau_senone_eval keep their logic; only the codebook search is vectorized.

#include "CPTMScorer.h"
#include "ptm_internal.h"

#include <limits.h>
#if defined(__SSE2__)
#include <xmmintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif
#include <stdlib.h>
#include <string.h>

// Scores must be PocketSphinx's to the bit: no fused multiply-add.
#pragma STDC FP_CONTRACT OFF

_Static_assert(sizeof(mfcc_t) == sizeof(float) && (mfcc_t)0.5 != 0,
               "this scorer is for PocketSphinx built with floating-point features");

typedef float lanes_t __attribute__((vector_size(LANES * sizeof(float))));
typedef int32 lane_mask_t __attribute__((vector_size(LANES * sizeof(int32))));

// PocketSphinx's constants (hmm.h, tied_mgau_common.h).
#define SENSCR_SHIFT 10
#define WORST_SCORE ((int)0xE0000000)
#define MAX_NEG_ASCR 96

// Exported by libpocketsphinx; declared in no installed header.
extern int ptm_mgau_frame_eval(struct ps_mgau *mgau, int16 *senscr, uint8 *senone_active,
                               int32 n_senone_active, mfcc_t **feat, int32 frame, int32 compallsen);
extern void ptm_mgau_free(struct ps_mgau *mgau);

// MARK: Interleaved Gaussians (layout in ptm_internal.h)

// `scratch` holds n_density * featlen values.
static void interleave(mfcc_t *block, int n_density, int featlen, mfcc_t *scratch) {
    memcpy(scratch, block, (size_t)n_density * featlen * sizeof(mfcc_t));
    for (int cw = 0; cw < n_density; ++cw)
        for (int dim = 0; dim < featlen; ++dim)
            block[interleaved_index(cw, dim, featlen)] = scratch[(size_t)cw * featlen + dim];
}

// MARK: Evaluation (ptm_mgau.c's, but for the interleaved layout)

static inline int fast_logmath_add(logmath_t *lmath, int mlx, int mly) {
    logadd_t *t = LOGMATH_TABLE(lmath);
    int d, r;
    if (mlx > mly) {
        d = mlx - mly;
        r = mly;
    } else {
        d = mly - mlx;
        r = mlx;
    }
    return r - ((uint8 *)t->table)[d];
}

static inline int32 score_to_int(mfcc_t d) {
    return d < (mfcc_t)INT_MIN ? INT_MIN : (int32)d;
}

static void insertion_sort_topn(topn_t *topn, int i, int32 d) {
    topn_t vtmp;
    int j;

    topn[i].score = d;
    if (i == 0)
        return;
    vtmp = topn[i];
    for (j = i - 1; j >= 0 && d > topn[j].score; j--)
        topn[j + 1] = topn[j];
    topn[j + 1] = vtmp;
}

static void insertion_sort_cb(topn_t **cur, topn_t *worst, topn_t *best, int cw, int32 intd) {
    for (*cur = worst - 1; *cur >= best && intd >= (*cur)->score; --*cur)
        memcpy(*cur + 1, *cur, sizeof(**cur));
    ++*cur;
    (*cur)->cw = cw;
    (*cur)->score = intd;
}

// Re-scores the previous frame's best Gaussians of one codebook on this frame.
static int eval_topn(ptm_mgau_t *s, int cb, int feat, mfcc_t const *z) {
    topn_t *topn = s->f->topn[cb][feat];
    int featlen = s->g->featlen[feat];
    mfcc_t const *means = s->g->mean[cb][feat][0];
    mfcc_t const *vars = s->g->var[cb][feat][0];

    for (int i = 0; i < s->max_topn; i++) {
        int cw = topn[i].cw;
        size_t base = interleaved_index(cw, 0, featlen);
        mfcc_t d = s->g->det[cb][feat][cw];
        for (int dim = 0; dim < featlen; ++dim) {
            mfcc_t diff = z[dim] - means[base + (size_t)dim * LANES];
            mfcc_t sqdiff = diff * diff;
            mfcc_t compl = sqdiff * vars[base + (size_t)dim * LANES];
            d = d - compl;
        }
        insertion_sort_topn(topn, i, score_to_int(d));
    }
    return topn[0].score;
}

// Asked up to three times per group of Gaussians: one instruction for the four lanes, not a
// branch per lane (a tenth of all decoding time on x86_64 when it was a loop).
static inline int all_below(lanes_t d, mfcc_t threshold) {
    lane_mask_t below = d < threshold;
#if defined(__SSE2__)
    return _mm_movemask_ps((__m128)below) == 0xF;
#elif defined(__aarch64__)
    return vminvq_u32((uint32x4_t)below) != 0;
#else
    for (int lane = 0; lane < LANES; ++lane)
        if (!below[lane])
            return 0;
    return 1;
#endif
}

// Searches one codebook for Gaussians better than the worst of the current top N, LANES at a time.
static int eval_cb(ptm_mgau_t *s, int cb, int feat, mfcc_t const *z) {
    topn_t *best = s->f->topn[cb][feat];
    topn_t *topn = best;
    topn_t *worst = topn + (s->max_topn - 1);
    mfcc_t const *means = s->g->mean[cb][feat][0];
    mfcc_t const *vars = s->g->var[cb][feat][0];
    mfcc_t const *det = s->g->det[cb][feat];
    int featlen = s->g->featlen[feat];
    int n_density = s->g->n_density;

    for (int first = 0; first < n_density; first += LANES) {
        // A Gaussian's score only falls as dimensions are added (each term is a square times a
        // positive weight), so a group can stop once all of it is below the worst kept score.
        // The threshold only rises within a codebook, so the group's starting one is safe.
        mfcc_t threshold = (mfcc_t)worst->score;
        lanes_t d;
        memcpy(&d, det + first, sizeof(d));
        mfcc_t const *mean = means + (size_t)first * featlen;
        mfcc_t const *var = vars + (size_t)first * featlen;
        int dropped = 0;
        for (int dim = 0; dim < featlen; ++dim) {
            lanes_t m, v;
            memcpy(&m, mean + (size_t)dim * LANES, sizeof(m));
            memcpy(&v, var + (size_t)dim * LANES, sizeof(v));
            lanes_t diff = z[dim] - m;
            lanes_t sqdiff = diff * diff;
            lanes_t compl = sqdiff * v;
            d = d - compl;
            // Where ptm_mgau.c looks too: after the first dimension, then every four.
            if (dim % 4 == 0 && dim + 1 < featlen && all_below(d, threshold)) {
                dropped = 1;
                break;
            }
        }
        if (dropped)
            continue;
        // In Gaussian order, as ptm_mgau.c inserts them: each insertion raises the threshold.
        for (int lane = 0; lane < LANES; ++lane) {
            int cw = first + lane;
            mfcc_t score = d[lane];
            topn_t *cur;
            int i;
            if (score < (mfcc_t)worst->score)
                continue;
            for (i = 0; i < s->max_topn; i++)
                if (topn[i].cw == cw)
                    break;
            if (i < s->max_topn)
                continue; // already there (re-scored by eval_topn)
            insertion_sort_cb(&cur, worst, best, cw, score_to_int(score));
        }
    }
    return best->score;
}

static void codebook_eval(ptm_mgau_t *s, mfcc_t **z, int frame) {
    // First the previous frame's top N, which sets a tight threshold for the full search.
    for (int i = 0; i < s->g->n_mgau; ++i)
        for (int j = 0; j < s->g->n_feat; ++j)
            eval_topn(s, i, j, z[j]);
    if (frame % s->ds_ratio)
        return;
    for (int i = 0; i < s->g->n_mgau; ++i) {
        if (bitvec_is_clear(s->f->mgau_active, i))
            continue;
        for (int j = 0; j < s->g->n_feat; ++j)
            eval_cb(s, i, j, z[j]);
    }
}

static void codebook_norm(ptm_mgau_t *s) {
    int32 norms = 0;
    for (int j = 0; j < s->g->n_feat; ++j) {
        int32 norm = WORST_SCORE;
        for (int i = 0; i < s->g->n_mgau; ++i) {
            if (bitvec_is_clear(s->f->mgau_active, i))
                continue;
            if (norm < s->f->topn[i][j][0].score >> SENSCR_SHIFT)
                norm = s->f->topn[i][j][0].score >> SENSCR_SHIFT;
        }
        norms += norm;
        for (int i = 0; i < s->g->n_mgau; ++i) {
            if (bitvec_is_clear(s->f->mgau_active, i))
                continue;
            for (int k = 0; k < s->max_topn; ++k) {
                topn_t *t = &s->f->topn[i][j][k];
                t->score >>= SENSCR_SHIFT;
                t->score -= norm;
                t->score = -t->score;
                if (t->score > MAX_NEG_ASCR)
                    t->score = MAX_NEG_ASCR;
            }
        }
    }
    heed_scorer_state(s)->norms = norms;
}

static void calc_cb_active(ptm_mgau_t *s, uint8 *senone_active, int32 n_senone_active, int compallsen) {
    if (compallsen) {
        bitvec_set_all(s->f->mgau_active, s->g->n_mgau);
        return;
    }
    bitvec_clear_all(s->f->mgau_active, s->g->n_mgau);
    for (int lastsen = 0, i = 0; i < n_senone_active; ++i) {
        int sen = senone_active[i] + lastsen;
        bitvec_set(s->f->mgau_active, s->sen2cb[sen]);
        lastsen = sen;
    }
}

static int senone_eval(ptm_mgau_t *s, int16 *senone_scores, uint8 *senone_active,
                       int32 n_senone_active, int compall) {
    int bestscore = 0x7fffffff;

    memset(senone_scores, 0, s->n_sen * sizeof(*senone_scores));
    if (compall)
        n_senone_active = s->n_sen;
    for (int lastsen = 0, i = 0; i < n_senone_active; ++i) {
        int sen = compall ? i : senone_active[i] + lastsen;
        int cb = s->sen2cb[sen];
        int ascore = 0;
        lastsen = sen;
        if (bitvec_is_clear(s->f->mgau_active, cb)) {
            for (int f = 0; f < s->g->n_feat; ++f)
                for (int j = 0; j < s->max_topn; ++j)
                    s->f->topn[cb][f][j].score = MAX_NEG_ASCR;
        }
        for (int f = 0; f < s->g->n_feat; ++f) {
            topn_t *topn = s->f->topn[cb][f];
            int fden = 0;
            for (int j = 0; j < s->max_topn; ++j) {
                int mixw;
                if (s->mixw_cb) {
                    int dcw = s->mixw[f][topn[j].cw][sen / 2];
                    dcw = (dcw & 1) ? dcw >> 4 : dcw & 0x0f;
                    mixw = s->mixw_cb[dcw];
                } else {
                    mixw = s->mixw[f][topn[j].cw][sen];
                }
                if (j == 0)
                    fden = mixw + topn[j].score;
                else
                    fden = fast_logmath_add(s->lmath_8b, fden, mixw + topn[j].score);
            }
            ascore += fden;
        }
        if (ascore < bestscore)
            bestscore = ascore;
        senone_scores[sen] = ascore;
    }
    for (int i = 0; i < s->n_sen; ++i)
        senone_scores[i] -= bestscore;
    return bestscore;
}

// A search scores only the senones its active HMMs need, and each frame's scores are taken
// relative to the best of those: two searches over the same frames report acoustic scores on
// different scales. The offset puts a frame's scores back on the model's own.
static void record_score_offset(ptm_mgau_t *s, int frame, int bestscore) {
    heed_scorer_state_t *state = heed_scorer_state(s);
    int32 *offset = heed_frame_row(&state->score_offsets, frame);
    if (offset != NULL)
        *offset = bestscore - state->norms;
}

int heed_ptm_begin_score_offsets(struct ps_decoder_s *decoder) {
    heed_scorer_state_t *state = heed_decoder_scorer_state(decoder);
    if (state == NULL)
        return 0;
    heed_frame_rows_start(&state->score_offsets, sizeof(int32));
    return 1;
}

long heed_ptm_end_score_offsets(struct ps_decoder_s *decoder, int *out, long capacity) {
    heed_scorer_state_t *state = heed_decoder_scorer_state(decoder);
    long frames = state == NULL ? 0 : heed_frame_rows_take(&state->score_offsets, out, capacity, 0);
    return frames < capacity ? frames : capacity;  // what was copied: the caller's buffer holds no more
}

// MARK: Codebooks kept for further decodes of the same samples
//
// An utterance's samples are decoded again against other searches (the language alone, a free
// phone loop for verification): the features, and so each codebook's best Gaussians, are the same
// every time, and searching the codebooks is most of the cost of a decode. The first decode keeps
// each frame's top N of every codebook (and which codebooks it searched in full); the others start
// from them and search only the codebooks the first did not need. Their scores are the ones they
// would have computed themselves: a full search finds the same top N whatever Gaussians it starts
// from.

// Utterances end at 10 s (the endpointer's longest); frames after 10.24 s are searched again (the
// rows grow by doubling: one more frame would double their 2.6 MB).
#define KEPT_CODEBOOK_FRAMES 1024

// A row: the top N's scores (int32), their Gaussians (uint8), a flag per codebook searched in
// full, and a last byte set once the row is filled. Rounded up to keep the scores aligned.
static size_t codebook_entries(ptm_mgau_t const *s) {
    return (size_t)s->g->n_mgau * s->g->n_feat * s->max_topn;
}

static size_t codebook_row_bytes(ptm_mgau_t const *s) {
    size_t bytes = codebook_entries(s) * (sizeof(int32) + sizeof(uint8)) + (size_t)s->g->n_mgau + 1;
    return (bytes + sizeof(int32) - 1) / sizeof(int32) * sizeof(int32);
}

int heed_ptm_keep_codebooks(struct ps_decoder_s *decoder) {
    ptm_mgau_t *s = heed_installed_scorer(decoder);
    if (s == NULL)
        return 0;
    heed_scorer_state_t *state = heed_scorer_state(s);
    state->reusing_codebooks = 0;
    state->codebooks.on = 0;
    if (s->g->n_density > 256)  // a Gaussian's number must fit in a byte
        return 0;
    heed_frame_rows_start(&state->codebooks, codebook_row_bytes(s));
    return 1;
}

int heed_ptm_reuse_codebooks(struct ps_decoder_s *decoder) {
    heed_scorer_state_t *state = heed_decoder_scorer_state(decoder);
    if (state == NULL || state->codebooks.frames == 0)
        return 0;
    state->codebooks.on = 0;
    state->reusing_codebooks = 1;
    return 1;
}

void heed_ptm_forget_codebooks(struct ps_decoder_s *decoder) {
    heed_scorer_state_t *state = heed_decoder_scorer_state(decoder);
    if (state == NULL)
        return;
    state->codebooks.on = 0;
    state->codebooks.frames = 0;
    state->reusing_codebooks = 0;
}

// After codebook_eval, before codebook_norm changes the scores.
static void keep_codebooks(ptm_mgau_t *s, int frame) {
    heed_scorer_state_t *state = heed_scorer_state(s);
    if (!state->codebooks.on || frame >= KEPT_CODEBOOK_FRAMES)
        return;
    char *row = heed_frame_row(&state->codebooks, frame);
    if (row == NULL)
        return;
    size_t entries = codebook_entries(s);
    int32 *scores = (int32 *)row;
    uint8 *gaussians = (uint8 *)(scores + entries);
    uint8 *searched = gaussians + entries;
    topn_t const *topn = s->f->topn[0][0];  // one block, as frame_eval's copy assumes
    for (size_t e = 0; e < entries; ++e) {
        scores[e] = topn[e].score;
        gaussians[e] = (uint8)topn[e].cw;
    }
    int full = frame % s->ds_ratio == 0;
    for (int cb = 0; cb < s->g->n_mgau; ++cb)
        searched[cb] = full && bitvec_is_set(s->f->mgau_active, cb);
    searched[s->g->n_mgau] = 1;
}

// Instead of codebook_eval: the kept top N, and a full search of the codebooks active now that the
// first decode did not search on this frame. 0 when nothing is kept for the frame.
static int reuse_codebooks(ptm_mgau_t *s, mfcc_t **z, int frame) {
    heed_scorer_state_t *state = heed_scorer_state(s);
    if (!state->reusing_codebooks || frame >= state->codebooks.frames)
        return 0;
    char *row = (char *)state->codebooks.rows + state->codebooks.row_bytes * (size_t)frame;
    size_t entries = codebook_entries(s);
    int32 const *scores = (int32 const *)row;
    uint8 const *gaussians = (uint8 const *)(scores + entries);
    uint8 const *searched = gaussians + entries;
    if (!searched[s->g->n_mgau])
        return 0;
    topn_t *topn = s->f->topn[0][0];
    for (size_t e = 0; e < entries; ++e) {
        topn[e].score = scores[e];
        topn[e].cw = gaussians[e];
    }
    if (frame % s->ds_ratio)
        return 1;
    // Searching fewer (keeping what the first decode tracked of the others) was measured: it lets
    // more false commands through verification (synthesized workshop negatives 1 -> 3 of 40).
    for (int cb = 0; cb < s->g->n_mgau; ++cb) {
        if (searched[cb] || bitvec_is_clear(s->f->mgau_active, cb))
            continue;
        for (int feat = 0; feat < s->g->n_feat; ++feat)
            eval_cb(s, cb, feat, z[feat]);
    }
    return 1;
}

static int frame_eval(struct ps_mgau *ps, int16 *senone_scores, uint8 *senone_active,
                      int32 n_senone_active, mfcc_t **featbuf, int32 frame, int32 compallsen) {
    ptm_mgau_t *s = (ptm_mgau_t *)ps;
    int fast_eval_idx = frame % s->n_fast_hist;

    s->f = s->hist + fast_eval_idx;
    // Past frames (fast match looking back) already have their top N.
    if (frame >= ps->frame_idx) {
        fast_eval_t *lastf = fast_eval_idx == 0 ? s->hist + s->n_fast_hist - 1
                                                : s->hist + fast_eval_idx - 1;
        memcpy(s->f->topn[0][0], lastf->topn[0][0],
               (size_t)s->g->n_mgau * s->g->n_feat * s->max_topn * sizeof(topn_t));
        heed_ptm_record_frame(s, featbuf, frame);
        calc_cb_active(s, senone_active, n_senone_active, compallsen);
        if (!reuse_codebooks(s, featbuf, frame)) {
            codebook_eval(s, featbuf, frame);
            keep_codebooks(s, frame);
        }
        codebook_norm(s);
    }
    int bestscore = senone_eval(s, senone_scores, senone_active, n_senone_active, compallsen);
    // Past frames keep the offset they were first scored with: their norms are not kept.
    if (frame >= ps->frame_idx)
        record_score_offset(s, frame, bestscore);
    return 0;
}

// MLLR would re-read the means into PocketSphinx's own layout under this scorer; Heed uses none.
static int refuse_transform(struct ps_mgau *mgau, void *mllr) {
    (void)mgau;
    (void)mllr;
    return -1;
}

static void free_scorer(struct ps_mgau *mgau) {
    heed_scorer_state_t *state = heed_scorer_state((ptm_mgau_t *)mgau);
    ptm_mgau_free(mgau);
    free(state->score_offsets.rows);
    free(state->recording.rows);
    free(state->codebooks.rows);
    free(state);
}

// MARK: Installation

int heed_ptm_scorer_is_installed(struct ps_decoder_s *decoder) {
    return heed_installed_scorer(decoder) != NULL;
}

ptm_mgau_t *heed_installed_scorer(struct ps_decoder_s *decoder) {
    struct ps_mgau *mgau = decoder_mgau(decoder);
    return mgau != NULL && mgau->vt != NULL && mgau->vt->frame_eval == frame_eval ? (ptm_mgau_t *)mgau : NULL;
}

int heed_ptm_scorer_install(struct ps_decoder_s *decoder) {
    struct ps_mgau *mgau = decoder_mgau(decoder);
    if (mgau == NULL || mgau->vt == NULL)
        return 0;
    if (mgau->vt->frame_eval == frame_eval)
        return 1;
    if (mgau->vt->frame_eval != ptm_mgau_frame_eval)
        return 0; // not a PTM model (or not the layout this file expects)
    ptm_mgau_t *s = (ptm_mgau_t *)mgau;
    gauden_t *g = s->g;
    if (g == NULL || g->n_density % LANES != 0 || g->n_density < s->max_topn || s->max_topn < 1 ||
        s->ds_ratio < 1 || s->n_fast_hist < 1)
        return 0;
    int max_featlen = 0;
    for (int feat = 0; feat < g->n_feat; ++feat) {
        if (g->featlen[feat] < 1)
            return 0;
        if (g->featlen[feat] > max_featlen)
            max_featlen = g->featlen[feat];
    }
    // Allocated before anything is moved, so a failure leaves the model as it was.
    mfcc_t *scratch = malloc((size_t)g->n_density * max_featlen * sizeof(mfcc_t));
    heed_scorer_state_t *state = calloc(1, sizeof(heed_scorer_state_t));
    if (scratch == NULL || state == NULL) {
        free(scratch);
        free(state);
        return 0;
    }
    state->funcs = (mgau_funcs_t){"ptm-interleaved", frame_eval, refuse_transform, free_scorer};
    for (int cb = 0; cb < g->n_mgau; ++cb)
        for (int feat = 0; feat < g->n_feat; ++feat) {
            interleave(g->mean[cb][feat][0], g->n_density, g->featlen[feat], scratch);
            interleave(g->var[cb][feat][0], g->n_density, g->featlen[feat], scratch);
        }
    free(scratch);
    mgau->vt = &state->funcs;
    return 1;
}
