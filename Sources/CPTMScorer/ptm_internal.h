// PocketSphinx 5prealpha's internal structures, as far as Heed's scorer and noise adaptation use
// them, and the interleaved layout the scorer gives the Gaussians. Private to this target: only
// the three C files here include it. The structures are copies of the beginnings of
// PocketSphinx's own (pocketsphinx_internal.h, acmod.h, ptm_mgau.h, ms_gauden.h of the version
// Debian ships); heed_ptm_scorer_install checks that the model really is a PTM model first.
#ifndef HEED_PTM_INTERNAL_H
#define HEED_PTM_INTERNAL_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <pocketsphinx.h>
#include <sphinxbase/bitvec.h>
#include <sphinxbase/fe.h>
#include <sphinxbase/logmath.h>
#include <sphinxbase/prim_type.h>

// Four Gaussians per vector: SSE2 on x86-64, NEON on ARM. (Eight were no faster here: a group
// stops only when all its Gaussians have fallen below the threshold.)
#define LANES 4

struct ps_mgau;
typedef struct {
    char const *name;
    int (*frame_eval)(struct ps_mgau *mgau, int16 *senscr, uint8 *senone_active,
                      int32 n_senone_active, mfcc_t **feat, int32 frame, int32 compallsen);
    int (*transform)(struct ps_mgau *mgau, void *mllr);
    void (*free)(struct ps_mgau *mgau);
} mgau_funcs_t;

struct ps_mgau {
    mgau_funcs_t *vt;
    int frame_idx;
};

typedef struct {
    void *config;
    void *lmath;
    void *strings;
    void *fe;
    void *fcb;
    void *mdef;
    void *tmat;
    struct ps_mgau *mgau;
} acmod_prefix_t;

typedef struct {
    void *config;
    int refcount;
    acmod_prefix_t *acmod;
} decoder_prefix_t;

typedef struct {
    mfcc_t ****mean;
    mfcc_t ****var;
    mfcc_t ***det;
    logmath_t *lmath;
    int32 n_mgau;
    int32 n_feat;
    int32 n_density;
    int32 *featlen;
} gauden_t;

typedef struct {
    int32 cw;
    int32 score;
} topn_t;

typedef struct {
    topn_t ***topn;
    bitvec_t *mgau_active;
} fast_eval_t;

typedef struct {
    struct ps_mgau base;
    void *config;
    gauden_t *g;
    int32 n_sen;
    uint8 *sen2cb;
    uint8 ***mixw;
    void *sendump_mmap;
    uint8 *mixw_cb;
    int16 max_topn;
    int16 ds_ratio;
    fast_eval_t *hist;
    fast_eval_t *f;
    int n_fast_hist;
    logmath_t *lmath_8b;
    logmath_t *lmath;
} ptm_mgau_t;


static inline struct ps_mgau *decoder_mgau(struct ps_decoder_s *decoder) {
    decoder_prefix_t *prefix = (decoder_prefix_t *)decoder;
    if (prefix == NULL || prefix->acmod == NULL)
        return NULL;
    return prefix->acmod->mgau;
}

// After installation the Gaussians of codebook `cb`, stream `feat` are stored from
// g->mean[cb][feat][0] on as groups of LANES: group k holds Gaussians k*LANES ... k*LANES+LANES-1,
// dimension by dimension. (g->mean[cb][feat][d] for d > 0 no longer points at Gaussian d; only
// ptm_scorer.c and noise_adaptation.c read the means and variances once the scorer is installed.)
static inline size_t interleaved_index(int cw, int dim, int featlen) {
    return (size_t)(cw / LANES) * featlen * LANES + (size_t)dim * LANES + cw % LANES;
}

/// The decoder's model when Heed's scorer is installed on it (its means are interleaved), else NULL.
ptm_mgau_t *heed_installed_scorer(struct ps_decoder_s *decoder);

/// One row of `row_bytes` per frame scored in an utterance, kept while `on` (the score offsets
/// and the speaker recording are two of these).
typedef struct {
    int on;
    void *rows;
    long frames, capacity;
    size_t row_bytes;
} heed_frame_rows_t;

/// Starts keeping rows of `row_bytes` from frame 0 of the next utterance; the buffer is reused.
static inline void heed_frame_rows_start(heed_frame_rows_t *kept, size_t row_bytes) {
    if (kept->row_bytes != row_bytes) {
        free(kept->rows);
        kept->rows = NULL;
        kept->capacity = 0;
    }
    kept->on = 1;
    kept->frames = 0;
    kept->row_bytes = row_bytes;
}

/// The row of `frame`, grown to fit (rows skipped since the last are zeroed); NULL when not
/// keeping, or when memory ran out: then nothing is kept, since rows for part of the frames would
/// be wrong, not missing.
static inline void *heed_frame_row(heed_frame_rows_t *kept, int frame) {
    if (!kept->on || frame < 0)
        return NULL;
    if (frame >= kept->capacity) {
        long grown_capacity = kept->capacity == 0 ? 512 : kept->capacity;
        while (grown_capacity <= frame)
            grown_capacity *= 2;
        void *grown = realloc(kept->rows, kept->row_bytes * (size_t)grown_capacity);
        if (grown == NULL) {
            free(kept->rows);
            memset(kept, 0, sizeof(*kept));
            return NULL;
        }
        kept->rows = grown;
        kept->capacity = grown_capacity;
    }
    char *rows = kept->rows;
    if (frame > kept->frames)
        memset(rows + kept->row_bytes * (size_t)kept->frames, 0, kept->row_bytes * (size_t)(frame - kept->frames));
    if (frame >= kept->frames)
        kept->frames = frame + 1;
    return rows + kept->row_bytes * (size_t)frame;
}

/// Stops keeping; copies the first rows, at most `capacity` of them, into `out` (may be NULL) and
/// returns how many frames were kept. `release`: free the buffer too (a rare, long recording).
static inline long heed_frame_rows_take(heed_frame_rows_t *kept, void *out, long capacity, int release) {
    long frames = kept->on ? kept->frames : 0;
    long copied = frames < capacity ? frames : capacity;
    if (out != NULL && copied > 0)
        memcpy(out, kept->rows, kept->row_bytes * (size_t)copied);
    kept->on = 0;
    kept->frames = 0;
    if (release) {
        free(kept->rows);
        memset(kept, 0, sizeof(*kept));
    }
    return frames;
}

/// What Heed keeps for one installed scorer, beside PocketSphinx's: the scorer's function table
/// (the model's `vt` points here, so the state lives and dies with the decoder's model, and two
/// decoders on two threads share nothing), and what is kept of the frames being scored.
typedef struct {
    mgau_funcs_t funcs;  // first: `base.vt` points at this struct
    /// What codebook_norm and senone_eval took off each frame's scores (one int32 per frame;
    /// heed_ptm_end_score_offsets), and the streams' norms summed for the frame being scored.
    heed_frame_rows_t score_offsets;
    int32 norms;
    /// The features of each frame scored (speaker_adaptation.c's recording).
    heed_frame_rows_t recording;
    /// Each frame's best Gaussians per codebook, kept by one decode for a second decode of the
    /// same samples to reuse while `reusing_codebooks` (ptm_scorer.c).
    heed_frame_rows_t codebooks;
    int reusing_codebooks;
} heed_scorer_state_t;

static inline heed_scorer_state_t *heed_scorer_state(ptm_mgau_t *s) {
    return (heed_scorer_state_t *)s->base.vt;
}

/// The state of the scorer installed on `decoder`, NULL when Heed's scorer is not installed.
static inline heed_scorer_state_t *heed_decoder_scorer_state(struct ps_decoder_s *decoder) {
    ptm_mgau_t *s = heed_installed_scorer(decoder);
    return s == NULL ? NULL : heed_scorer_state(s);
}

/// Copies a scored frame's features when a recording is running on `s` (speaker_adaptation.c).
void heed_ptm_record_frame(ptm_mgau_t *s, mfcc_t **features, int frame);


#endif
