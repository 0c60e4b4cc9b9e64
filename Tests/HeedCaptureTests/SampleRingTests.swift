import Foundation
import Synchronization
import Testing
@testable import HeedCapture

@Suite struct SampleRingTests {
    @Test func emptyRingReadsNothing() {
        let ring = SampleRing(capacity: 8)
        var out: [Int16] = []
        #expect(ring.read(into: &out) == 0)
        #expect(out.isEmpty && ring.dropped == 0)
    }

    @Test func wrapsAround() {
        let ring = SampleRing(capacity: 5)
        var out: [Int16] = []
        ring.write([1, 2, 3])
        #expect(ring.read(into: &out, maximum: 2) == 2)
        ring.write([4, 5, 6, 7])  // wraps past the end of storage
        #expect(ring.read(into: &out) == 5)
        #expect(out == [1, 2, 3, 4, 5, 6, 7])
        #expect(ring.dropped == 0)
    }

    @Test func fullRingDropsTheOldestAndCountsThem() {
        let ring = SampleRing(capacity: 4)
        var out: [Int16] = []
        ring.write([1, 2, 3])
        ring.write([4, 5, 6])  // 6 written, 4 fit: 1 and 2 are lost
        #expect(ring.read(into: &out) == 4)
        #expect(out == [3, 4, 5, 6])
        #expect(ring.dropped == 2)
        ring.write(Array(10...19))  // one write larger than the ring keeps its newest samples
        out.removeAll()
        ring.read(into: &out)
        #expect(out == [16, 17, 18, 19])
        #expect(ring.dropped == 2 + 6)
        #expect(ring.totalWritten == 16)
    }

    /// Producer and consumer on separate threads; every sample carries its own position, so the
    /// consumer can check that what it gets is exactly the stream minus what was reported dropped.
    @Test(arguments: [64, 4096, 2_000_000])
    func producerAndConsumerOnSeparateThreads(capacity: Int) async {
        let ring = SampleRing(capacity: capacity)
        let total = 2_000_000
        let producerDone = Atomic<Bool>(false)
        let producer = Thread {
            var position = 0
            var size = 1
            while position < total {
                let count = min(size, total - position)
                ring.write((position..<position + count).map { Int16(truncatingIfNeeded: $0) })
                position += count
                size = size % 700 + 13
            }
            producerDone.store(true, ordering: .releasing)
        }
        producer.start()
        var expected = 0, received = 0, checksumErrors = 0, gaps = 0
        var chunk: [Int16] = []
        while true {
            let done = producerDone.load(ordering: .acquiring)
            chunk.removeAll(keepingCapacity: true)
            let droppedBefore = ring.dropped
            ring.read(into: &chunk, maximum: 333)
            let skipped = ring.dropped - droppedBefore
            if skipped > 0 { gaps += 1; expected += skipped }
            for sample in chunk {
                if sample != Int16(truncatingIfNeeded: expected) { checksumErrors += 1 }
                expected += 1
            }
            received += chunk.count
            if done && chunk.isEmpty && ring.read(into: &chunk) == 0 { break }
            if !chunk.isEmpty, done { continue }
        }
        #expect(checksumErrors == 0)
        #expect(received + ring.dropped == total)
        #expect(expected == total)
        #expect(received > 0)
        // A ring that holds the whole stream never drops, however the threads interleave.
        if capacity >= total { #expect(received == total && gaps == 0) }
    }
}
