// Ring-buffer throughput for `make bench`: one producer thread writes 10 ms periods (160
// samples, as ALSA delivers them at 16 kHz) as fast as it can; one consumer thread reads as fast
// as it can. Prints one JSON line: samples per second delivered, samples dropped (the producer
// lapping the consumer), and whether every delivered sample arrived in order.
import Foundation
import HeedCapture

let total = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 100_000_000
let period = 160
let ring = SampleRing(capacity: 32_000)  // 2 s at 16 kHz, as `heed listen` uses by default
let done = DispatchSemaphore(value: 0)
nonisolated(unsafe) var produced = 0

let started = DispatchTime.now().uptimeNanoseconds
Thread {
    var block = [Int16](repeating: 0, count: period)
    var counter: UInt16 = 0
    while produced < total {
        for index in 0..<period { block[index] = Int16(bitPattern: counter); counter &+= 1 }
        ring.write(block)
        produced += period
    }
    done.signal()
}.start()

var delivered = 0, outOfOrder = 0
var buffer: [Int16] = []
buffer.reserveCapacity(32_000)
var producerDone = false
while true {
    buffer.removeAll(keepingCapacity: true)
    let count = ring.read(into: &buffer)
    // Drops only ever remove the oldest samples, before a read's first one; within one read
    // the samples must be consecutive, or the ring handed out a torn copy.
    var expected: UInt16? = nil
    for sample in buffer {
        let value = UInt16(bitPattern: sample)
        if let e = expected, value != e { outOfOrder += 1 }
        expected = value &+ 1
    }
    delivered += buffer.count
    if count == 0 {
        if producerDone { break }
        producerDone = done.wait(timeout: .now()) == .success
    }
}
let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
print("{\"samples\":\(total),\"delivered\":\(delivered),\"dropped\":\(ring.dropped),\"outOfOrder\":\(outOfOrder),"
      + "\"seconds\":\(seconds),\"samplesPerSecond\":\(Double(delivered) / seconds)}")
