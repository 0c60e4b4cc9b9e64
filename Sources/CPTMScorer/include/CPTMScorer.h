// A faster Gaussian evaluation for PocketSphinx's phonetically-tied mixture (PTM) models, the kind
// Debian's en-us model is. Swift calls only these two functions; PocketSphinx's internals stay in
// ptm_scorer.c.
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

#endif
