import Foundation
import HeedAudio
import Testing

@Suite struct PCMConverterTests {
    func bytes(_ samples: [Int16]) -> [UInt8] { samples.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] } }

    @Test func sixteenBitMonoPassesThroughWhateverTheChunking() throws {
        let samples: [Int16] = [0, 1000, -1000, 32767, -32768, 12345]
        var converter = PCMConverter(from: try .init(rate: 16000, width: 2, channels: 1), to: 16000)
        let all = bytes(samples)
        // A frame split across pieces waits for its other byte.
        let out = converter.convert(all[0..<3]) + converter.convert(all[3..<7]) + converter.convert(all[7...]) + converter.finish()
        #expect(out == samples)
    }

    @Test func channelsAreMixedAndWidthsRead() throws {
        // Stereo 16-bit: the mean of the two channels.
        var stereo = PCMConverter(from: try .init(rate: 16000, width: 2, channels: 2), to: 16000)
        #expect(stereo.convert(bytes([1000, 3000, -2000, 0])) == [2000, -1000])
        // 8-bit is unsigned, centred on 128 (as in WAV).
        var eight = PCMConverter(from: try .init(rate: 16000, width: 1, channels: 1), to: 16000)
        #expect(eight.convert([128, 192, 64]) == [0, 16384, -16384])
        // 24- and 32-bit little-endian signed.
        var wide = PCMConverter(from: try .init(rate: 16000, width: 3, channels: 1), to: 16000)
        #expect(wide.convert([0x00, 0x00, 0x40, 0x00, 0x00, 0xC0]) == [16384, -16384])
        var widest = PCMConverter(from: try .init(rate: 16000, width: 4, channels: 1), to: 16000)
        #expect(widest.convert([0x00, 0x00, 0x00, 0x40]) == [16384])
    }

    @Test func otherRatesAreResampled() throws {
        // A second of 48 kHz becomes a second of 16 kHz.
        var converter = PCMConverter(from: try .init(rate: 48000, width: 2, channels: 1), to: 16000)
        let tone = (0..<48000).map { Int16(8000 * sin(Double($0) * 2 * .pi * 440 / 48000)) }
        let out = converter.convert(bytes(tone)) + converter.finish()
        #expect(abs(out.count - 16000) <= 2)
    }

    @Test func formatsHeedCannotConvertAreRefused() {
        #expect(throws: AudioError.self) { try PCMConverter.Format(rate: 16000, width: 5, channels: 1) }
        #expect(throws: AudioError.self) { try PCMConverter.Format(rate: 1, width: 2, channels: 1) }
        #expect(throws: AudioError.self) { try PCMConverter.Format(rate: 16000, width: 2, channels: 0) }
    }
}
