#ifndef HEED_CWEBRTCNOISE_H
#define HEED_CWEBRTCNOISE_H
// A C face for WebRTC's noise suppressor, so Swift never sees C++. Frames are 10 ms of 16-bit
// mono samples, processed in place.
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct heed_webrtc_ns heed_webrtc_ns;

/// level: 0 low, 1 moderate, 2 high, 3 very high. NULL when the rate or level is not supported.
heed_webrtc_ns *heed_webrtc_ns_create(int sample_rate, int level);
/// Samples per frame (10 ms at the rate given to create).
int heed_webrtc_ns_frame_length(const heed_webrtc_ns *ns);
/// Denoises one frame in place. 0 on success, else WebRTC's error code.
int heed_webrtc_ns_process(heed_webrtc_ns *ns, int16_t *frame);
void heed_webrtc_ns_destroy(heed_webrtc_ns *ns);

#ifdef __cplusplus
}
#endif
#endif
