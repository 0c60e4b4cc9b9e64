// WebRTC AudioProcessing with only noise suppression on (no AGC, echo control or VAD: Heed's
// own endpointer decides what is speech).
#include "CWebRTCNoise.h"

#include <cstring>
#include <webrtc/modules/audio_processing/include/audio_processing.h>
#include <webrtc/modules/interface/module_common_types.h>

struct heed_webrtc_ns {
    webrtc::AudioProcessing *apm;
    webrtc::AudioFrame frame;
    int sample_rate;
};

extern "C" heed_webrtc_ns *heed_webrtc_ns_create(int sample_rate, int level) {
    if (sample_rate != 8000 && sample_rate != 16000 && sample_rate != 32000 && sample_rate != 48000) return nullptr;
    if (level < 0 || level > 3) return nullptr;
    webrtc::AudioProcessing *apm = webrtc::AudioProcessing::Create();
    if (apm == nullptr) return nullptr;
    if (apm->noise_suppression()->set_level(static_cast<webrtc::NoiseSuppression::Level>(level)) != 0 ||
        apm->noise_suppression()->Enable(true) != 0) {
        delete apm;
        return nullptr;
    }
    heed_webrtc_ns *ns = new heed_webrtc_ns;
    ns->apm = apm;
    ns->sample_rate = sample_rate;
    return ns;
}

extern "C" int heed_webrtc_ns_frame_length(const heed_webrtc_ns *ns) { return ns->sample_rate / 100; }

extern "C" int heed_webrtc_ns_process(heed_webrtc_ns *ns, int16_t *samples) {
    const int length = ns->sample_rate / 100;
    ns->frame.sample_rate_hz_ = ns->sample_rate;
    ns->frame.num_channels_ = 1;
    ns->frame.samples_per_channel_ = length;
    std::memcpy(ns->frame.data_, samples, sizeof(int16_t) * length);
    const int status = ns->apm->ProcessStream(&ns->frame);
    if (status == 0) std::memcpy(samples, ns->frame.data_, sizeof(int16_t) * length);
    return status;
}

extern "C" void heed_webrtc_ns_destroy(heed_webrtc_ns *ns) {
    if (ns == nullptr) return;
    delete ns->apm;
    delete ns;
}
