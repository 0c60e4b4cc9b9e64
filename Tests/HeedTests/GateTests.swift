import Foundation
import HeedTestSupport
import Testing
@testable import Heed

/// The gate sits in the pipeline: no authorization, no decoding.
@Suite struct GateTests {
    let app = TestAuthorization.app

    @Test(arguments: [AuthorizationStatus.notDetermined, .denied, .restricted])
    func noRecognizerWithoutAuthorization(status: AuthorizationStatus) throws {
        var policy = AdminPolicy()
        if status == .restricted { policy.restrictions = [.init(service: .speechRecognition, apps: nil)] }
        let authorizer = Authorizer(store: try DecisionStore(directory: Fixtures.temporaryDirectory()), policy: policy)
        if status == .denied { try authorizer.set(.denied, .speechRecognition, for: app.id) }
        #expect(throws: AuthorizationError.self) { try authorizer.authorize(.speechRecognition, for: app, prompter: nil) }
    }

    @Test func revokedAuthorizationStopsDecodingBeforeTheNextSample() throws {
        let directory = try Fixtures.temporaryDirectory()
        let authorizer = Authorizer(store: try DecisionStore(directory: directory), policy: AdminPolicy())
        try authorizer.set(.authorized, .speechRecognition, for: app.id)
        let recognizer = try CommandRecognizer(authorization: authorizer.authorize(.speechRecognition, for: app, prompter: nil))
        let stop = Fixtures.demo.appendingPathComponent("stop.wav")
        #expect(try recognizer.recognize(file: stop).first?.intent?.name == "stop")
        let decoded = recognizer.samplesDecoded
        #expect(decoded > 0)

        // The person says no from another terminal.
        try DecisionStore(directory: directory).record(app: app.id, service: .speechRecognition, status: .denied, source: .command)
        Thread.sleep(forTimeInterval: 0.6)
        #expect(performing: { try recognizer.recognize(file: stop) }, throws: { ($0 as? HeedError)?.exitCode == 77 })
        // The stream path (stdin, live) is gated per utterance the same way.
        var stream = recognizer.makeStream()
        #expect(performing: { _ = try stream.feed(recognizer.loadAudio(file: stop)) + stream.finish() },
                throws: { ($0 as? HeedError)?.kind == .permission })
        #expect(recognizer.samplesDecoded == decoded)
    }
}
