import Foundation
import Heed
import HeedService
import Testing

@Suite struct ServiceConfigurationTests {
    let here = URL(fileURLWithPath: "/etc/heed")

    @Test func settingsAreRead() throws {
        let configuration = try ServiceConfiguration(yaml: """
            device: plughw:1,0
            contexts: [contexts/coffee.yml, /opt/other.yml]
            builtins: false
            sensitivity: 0.3
            wake: hey barista
            wake-window: 6
            wyoming: tcp://0.0.0.0:10300
            mqtt: mqtt://localhost
            site-id: kitchen
            hub: true
            """, path: "heed.yml", relativeTo: here)
        #expect(configuration.device == "plughw:1,0")
        #expect(configuration.contexts == ["/etc/heed/contexts/coffee.yml", "/opt/other.yml"])
        #expect(configuration.builtins == false && configuration.hub == true)
        #expect(configuration.sensitivity == 0.3 && configuration.wakeWindow == 6)
        #expect(configuration.wake == "hey barista" && configuration.siteID == "kitchen")
        #expect(try ServiceConfiguration(yaml: "", path: "empty.yml", relativeTo: here) == ServiceConfiguration())
    }

    @Test func whatIsNotUnderstoodIsAnErrorNamingIt() {
        for (yaml, problem) in [("sensitivty: 0.3", "unknown setting 'sensitivty'"), ("sensitivity: 3", "sensitivity must be a number"),
                                ("hub: maybe", "hub must be true or false"), ("contexts: coffee.yml", "contexts must be a list"),
                                ("- a\n- b", "expected a mapping"), ("device: [", "not valid YAML"), ("wake: '...'", "wake must have")] {
            do {
                _ = try ServiceConfiguration(yaml: yaml, path: "heed.yml", relativeTo: here)
                Issue.record("accepted \(yaml)")
            } catch {
                #expect(error.kind == .configuration)
                #expect(error.message.hasPrefix("heed.yml: ") && error.message.contains(problem), "\(error.message)")
            }
        }
    }
}
