import Foundation
import HeedAuthorization

/// Authorization for tests: a temporary store and a test-rig policy, never the user's own.
public enum TestAuthorization {
    public static let app = AppManifest(id: "org.heed.tests", name: "Heed tests",
                                        usage: ["speech-recognition": "Decodes the test recordings.", "microphone": "Reads the test capture device."])

    /// A fresh state directory and a policy that pre-authorizes the test app for `services`.
    public static func authorizer(preauthorizing services: Set<Service> = Set(Service.allCases)) throws -> Authorizer {
        var policy = AdminPolicy()
        policy.authorizations[app.id] = services
        return Authorizer(store: try DecisionStore(directory: Fixtures.temporaryDirectory().appendingPathComponent("state")), policy: policy)
    }

    public static func speechRecognition() throws -> Authorization {
        try authorizer().authorize(.speechRecognition, for: app, prompter: nil)
    }

    /// Environment for running the `heed` executable: a temporary state directory and the
    /// repository's test-rig policy, which authorizes heed's own app.
    public static func cliEnvironment() throws -> [String: String] {
        ["HEED_STATE_DIR": try Fixtures.temporaryDirectory().appendingPathComponent("state").path,
         "HEED_POLICY": Fixtures.root.appendingPathComponent("Models/test-rig.policy.yml").path]
    }
}
