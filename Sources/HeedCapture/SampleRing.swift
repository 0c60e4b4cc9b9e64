import Synchronization

/// A single-producer, single-consumer ring of samples that never blocks the producer.
///
/// The capture thread writes; the decoding thread reads. When the consumer falls behind by more
/// than `capacity`, the producer overwrites the oldest samples, and the consumer counts them as
/// dropped when it next reads, so an overrun is always reported, never silent.
///
/// Positions are ever-increasing sample counts; `written` is published with release ordering
/// after the samples are stored, and read with acquire ordering before they are copied.
/// `writing` is raised before the producer touches storage (like a seqlock's sequence), so a
/// consumer can tell afterwards whether anything it copied was being overwritten meanwhile.
public final class SampleRing: @unchecked Sendable {
    // @unchecked: `storage` is written only by the one producer, in slots the consumer is not
    // entitled to read until `written` says so; a slot the producer overwrites while the consumer
    // copies it is detected afterwards (by re-reading `written`) and discarded as dropped.
    private let storage: UnsafeMutableBufferPointer<Int16>
    public let capacity: Int
    private let written = Atomic<Int>(0)
    private let writing = Atomic<Int>(0)
    private let consumed = Atomic<Int>(0)
    private let droppedCount = Atomic<Int>(0)

    public init(capacity: Int) {
        precondition(capacity > 0, "ring capacity must be positive")
        self.capacity = capacity
        storage = .allocate(capacity: capacity)
        storage.initialize(repeating: 0)
    }

    deinit { storage.deallocate() }

    /// Samples lost because the consumer fell behind.
    public var dropped: Int { droppedCount.load(ordering: .relaxed) }
    /// Samples ever written.
    public var totalWritten: Int { written.load(ordering: .relaxed) }

    /// Producer only. Never blocks.
    public func write(_ samples: UnsafeBufferPointer<Int16>) {
        guard !samples.isEmpty else { return }
        let start = written.load(ordering: .relaxed)
        writing.store(start + samples.count, ordering: .relaxed)
        atomicMemoryFence(ordering: .sequentiallyConsistent)  // announce before overwriting
        // Only the newest `capacity` samples can survive; skip straight to them.
        let skip = max(0, samples.count - capacity)
        var position = start + skip
        var index = skip
        while index < samples.count {
            let slot = position % capacity
            let run = min(samples.count - index, capacity - slot)
            _ = UnsafeMutableBufferPointer(rebasing: storage[slot..<slot + run])
                .update(fromContentsOf: UnsafeBufferPointer(rebasing: samples[index..<index + run]))
            index += run
            position += run
        }
        written.store(start + samples.count, ordering: .releasing)
    }

    public func write(_ samples: [Int16]) {
        samples.withUnsafeBufferPointer { write($0) }
    }

    /// Consumer only. Appends up to `maximum` of the oldest unread samples to `output` and
    /// returns how many; 0 when there is nothing new.
    @discardableResult
    public func read(into output: inout [Int16], maximum: Int = .max) -> Int {
        let end = written.load(ordering: .acquiring)
        var start = consumed.load(ordering: .relaxed)
        if end - start > capacity {
            droppedCount.add(end - start - capacity, ordering: .relaxed)
            start = end - capacity
        }
        let count = min(maximum, end - start)
        guard count > 0 else { return 0 }
        let base = output.count
        var position = start
        while position < start + count {
            let slot = position % capacity
            let run = min(start + count - position, capacity - slot)
            output.append(contentsOf: UnsafeBufferPointer(rebasing: storage[slot..<slot + run]))
            position += run
        }
        // Anything the producer lapped (or was about to) while we copied may be torn: discard it.
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        let lapped = writing.load(ordering: .relaxed) - capacity - start
        let torn = min(count, max(0, lapped))
        if torn > 0 {
            output.removeSubrange(base..<base + torn)
            droppedCount.add(torn, ordering: .relaxed)
        }
        consumed.store(start + count, ordering: .relaxed)
        return count - torn
    }
}
