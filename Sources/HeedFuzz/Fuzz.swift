import Foundation

// Built two ways. `make fuzz` builds it with -sanitize=fuzzer and HEED_FUZZING: libFuzzer's
// driver runs the target named by $HEED_FUZZ. A normal
// build gives a replayer instead: `heed-fuzz TARGET FILE...` runs files through a target, so a
// crash found by the fuzzer can be reproduced (and debugged) without it.

#if HEED_FUZZING
nonisolated(unsafe) private var selected: FuzzTarget?

/// Called by libFuzzer for each input. (Exported under libFuzzer's usual name too, which its
/// own main, linked but unused, refers to.)
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    selected!.run(count == 0 ? Data() : Data(bytes: bytes!, count: count))
    return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>,
                                 _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                                 _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

/// SwiftPM links an executable's main under this name; here it hands over to libFuzzer's driver
/// (which takes the usual libFuzzer arguments) for the target named by $HEED_FUZZ.
@_cdecl("heed_fuzz_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    let name = ProcessInfo.processInfo.environment["HEED_FUZZ"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        FileHandle.standardError.write(Data("heed-fuzz: set HEED_FUZZ to one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))\n".utf8))
        return 64
    }
    selected = target
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, fuzzOne)
}
#else
@main
struct Replayer {
    static func main() {
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
    }
}
#endif
