import Foundation

// Built two ways. `make fuzz` builds it with -sanitize=fuzzer and HEED_FUZZING: libFuzzer
// supplies main and calls the entry point below, for the target named by $HEED_FUZZ. A normal
// build gives a replayer instead: `heed-fuzz TARGET FILE...` runs files through a target, so a
// crash found by the fuzzer can be reproduced (and debugged) without it.

#if HEED_FUZZING
nonisolated(unsafe) private var selected: FuzzTarget?

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    if selected == nil {
        let name = ProcessInfo.processInfo.environment["HEED_FUZZ"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            fatalError("set HEED_FUZZ to one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        selected = target
    }
    selected!.run(Data(bytes: bytes, count: count))
    return 0
}
#else
let arguments = CommandLine.arguments.dropFirst()
guard let name = arguments.first, let target = FuzzTarget(rawValue: name), arguments.count > 1 else {
    FileHandle.standardError.write(Data("usage: heed-fuzz \(FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")) FILE...\n".utf8))
    exit(64)
}
for path in arguments.dropFirst() {
    guard let data = FileManager.default.contents(atPath: path) else {
        FileHandle.standardError.write(Data("heed-fuzz: cannot read \(path)\n".utf8))
        exit(66)
    }
    target.run(data)
}
#endif
