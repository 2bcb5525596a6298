import ArgumentParser
@testable import ClassicPhotos
import Foundation
import HTTPTransfer
import PhotoPipeline
import PhotoServer
import PhotoWeb
import SampleOrigin
import Testing

/// The settings' declarations (`ServerConfiguration.settings`) are the one place a setting is
/// written: `--help`, the environment, docs/settings.md's table and the pages' numbers each fail a
/// test here when they say otherwise.
@Suite("Settings: one declaration each, said by --help, the environment, the docs and the pages")
struct SettingsTableTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// README.md and the pages of docs/, one after the other.
    static let readme: String = {
        let docs = root.appendingPathComponent("docs")
        let pages = ((try? FileManager.default.contentsOfDirectory(atPath: docs.path)) ?? []).filter { $0.hasSuffix(".md") }.sorted()
        return ([root.appendingPathComponent("README.md")] + pages.map { docs.appendingPathComponent($0) })
            .map { (try? String(contentsOf: $0, encoding: .utf8)) ?? "" }.joined(separator: "\n")
    }()

    /// docs/settings.md's table: its head and every row after it.
    static func documentedTable() throws -> String {
        let page = try String(contentsOf: root.appendingPathComponent("docs/settings.md"), encoding: .utf8)
        let lines = page.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let head = try #require(lines.firstIndex { $0.hasPrefix("| flag | environment |") }, "docs/settings.md has the table")
        return lines[head...].prefix { $0.hasPrefix("|") }.joined(separator: "\n")
    }

    static let help = ServeCommand.helpMessage(columns: 10_000)

    static var names: [String] { ServerConfiguration.settings.map(\.name) }

    static func setting(named name: String) throws -> Setting {
        try #require(ServerConfiguration.settings.first { $0.name == name })
    }

    @Test func docsSettingsTableIsTheGeneratedOne() throws {
        #expect(try Self.documentedTable() == ServerConfiguration.settingsTable,
                "docs/settings.md's table differs from the declarations: paste `classic-photos settings` over it")
    }

    @Test func eachSettingIsDeclaredOnce() {
        #expect(Set(Self.names).count == Self.names.count)
    }

    @Test(arguments: names)
    func theHelpSaysTheDeclaration(name: String) throws {
        let setting = try Self.setting(named: name)
        #expect(Self.help.contains(setting.helpEntry), "--help of \(setting.flag)")
        #expect(setting.helpEntry.hasPrefix("  \(setting.flag) <"))
        let unwrapped = setting.helpEntry.split(separator: "\n").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        #expect(unwrapped.hasSuffix("[env: \(setting.variable)] (default: \(setting.defaultText))"))
        #expect(setting.helpEntry.split(separator: "\n").allSatisfy { $0.count <= 78 || !$0.contains(" ") })
    }

    @Test func aNumbersHelpSaysItsRangeAndUnit() throws {
        let prefetch = try Self.setting(named: "prefetch").helpEntry, strategy = try Self.setting(named: "strategy").helpEntry
        #expect(prefetch.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
            .hasSuffix("0 to 50 rows. See docs/scroll-rules.md. [env: CLASSIC_PHOTOS_PREFETCH] (default: 3 rows)"))
        #expect(strategy.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
            .contains("eager, visible, prefetch or serial. See docs/scroll-rules.md. [env: CLASSIC_PHOTOS_STRATEGY] (default: prefetch)"))
    }

    @Test func samplesTakesServesSettings() throws {
        let configuration = try SamplesCommand.parse(["--photo-count", "7", "--cache-dir", "/tmp/x"]).settings.configuration(environment: [:])
        #expect(configuration.sample.photoCount == 7 && configuration.sample.directory == "/tmp/x")
    }

    @Test(arguments: [
        (["--no-such", "1"], "unknown option '--no-such'"),
        (["--port"], "--port needs a value"),
        (["8080"], "unexpected argument '8080'"),
        (["--port", "x"], "--port must be a whole number, got x"),
    ])
    func aBadArgumentIsRefusedWithAReason(arguments: [String], reason: String) {
        #expect(Self.outcome(arguments, [:]) == "error: \(reason)")
    }

    @Test func aFlagTakesItsValueAfterAnEqualsSign() {
        #expect(Self.outcome(["--photo-count=12"], [:]) == Self.outcome(["--photo-count", "12"], [:]))
    }

    /// What the run makes of `arguments` and `environment`: its configuration, dumped, or the error.
    static func outcome(_ arguments: [String], _ environment: [String: String]) -> String {
        // Every run gets the same instance name, else each has a random one.
        let fixed = ["CLASSIC_PHOTOS_INSTANCE_NAME": "fixed"].merging(environment) { $1 }
        do {
            var text = ""
            dump(try ServeCommand.parse(arguments).makeConfiguration(environment: fixed), to: &text)
            return text
        } catch {
            return "error: \(error)"
        }
    }

    /// Values a text setting takes, to give it by flag and by variable.
    static let textExamples: [String: String] = [
        "host": "::", "base-path": "/demo", "source": "list.json", "photos-dir": "photos", "strategy": "visible",
        "cache-dir": "/tmp/x", "allow-source-host": "10.0.0.0/8", "public-dir": "P", "templates-dir": "T", "trusted-proxy": "10.1.0.0/16",
        "log-level": "debug", "database-url": "postgres://a@127.0.0.1/x", "instance-name": "other", "tls-cert": "c.pem", "tls-key": "k.pem",
    ]

    @Test(arguments: names)
    func theVariableIsReadAsTheFlagIs(name: String) throws {
        let setting = try Self.setting(named: name)
        let values: [String]
        if let range = setting.range {
            values = [String(range.lowerBound), String(range.upperBound)]
        } else {
            values = [try #require(Self.textExamples[name], "an example for \(setting.flag)")]
        }
        for value in values {
            let byFlag = Self.outcome([setting.flag, value], [:])
            #expect(byFlag == Self.outcome([], [setting.variable: value]), "\(setting.flag) \(value) and \(setting.variable)=\(value)")
            #expect(byFlag != Self.outcome([], [:]) || byFlag.hasPrefix("error") || setting.defaultValue == .number(Int(value) ?? -1)
                || setting.defaultText == value, "\(setting.flag) \(value) changes nothing")
        }
    }

    @Test(arguments: names)
    func aNumberOutsideItsRangeIsRefusedFromEitherPlace(name: String) throws {
        let setting = try Self.setting(named: name)
        guard let range = setting.range else { return }
        let reason = "error: \(setting.flag) must be between \(range.lowerBound) and \(range.upperBound), got \(range.upperBound + 1)"
        #expect(Self.outcome([setting.flag, String(range.upperBound + 1)], [:]) == reason)
        #expect(Self.outcome([], [setting.variable: String(range.upperBound + 1)]) == reason)
    }

    @Test func theREADMEsContractAndPageSayTheTablesNumbers() throws {
        let margins = try #require(try Self.setting(named: "prefetch").range)
        #expect(Self.readme.contains("`\"prefetch\": \(margins.lowerBound)-\(margins.upperBound)`"), "POST /api/viewport's prefetch range")
        #expect(Self.readme.contains("with `prefetch` \(margins.lowerBound)-\(margins.upperBound)"), "POST /api/labs' prefetch range")
        #expect(Self.readme.contains("a virtualised list of \(Defaults.rowHeight) px rows"))
        let apiNames = SchedulingStrategy.names.map { "\"\($0)\"" }.joined(separator: "\\|")
        #expect(Self.readme.contains("`\"strategy\": \(apiNames)`"), "POST /api/viewport's strategy names")
    }

    /// The value of `attribute="…"` in `html` after `anchor`.
    static func attribute(_ attribute: String, in html: String, after anchor: String = "<body") throws -> String {
        let start = try #require(html.range(of: anchor), "\(anchor) in the page").upperBound
        let found = try #require(html.range(of: " \(attribute)=\"", range: start..<html.endIndex), "\(attribute) after \(anchor)")
        return String(html[found.upperBound...].prefix { $0 != "\"" })
    }

    @Test func thePagesSayTheTablesDefaults() async throws {
        let cache = NSTemporaryDirectory() + "classic-photos-settings-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let configuration = try ServeCommand.parse(["--port", "0", "--photo-count", "3", "--cache-dir", cache]).makeConfiguration(environment: [:])
        let server = try await PhotoServer.start(configuration)
        var limits = TransferLimits()
        limits.allowedSources = try AllowedSources(parsing: ["127.0.0.1"])
        let base = "http://127.0.0.1:\(server.port)"
        let page: String, lab: String
        do {
            page = String(decoding: try await TransferLoop.shared.fetch(base + "/", limits: limits), as: UTF8.self)
            lab = String(decoding: try await TransferLoop.shared.fetch(base + "/lab", limits: limits), as: UTF8.self)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()

        let prefetch = try Self.setting(named: "prefetch"), margins = try #require(prefetch.range)
        // The pace the server measures a scroll from, as both pages report it.
        let interval = "\(Int(ScrollMotion.reportInterval * 1_000))"
        #expect(try Self.attribute("data-report-interval-ms", in: page) == interval)
        #expect(try Self.attribute("data-report-interval-ms", in: lab) == interval)
        #expect(try Self.attribute("data-strategy", in: page) == Self.setting(named: "strategy").defaultText)
        let margin = try #require(Self.number(prefetch.defaultValue))
        let latency = try #require(Self.number(Self.setting(named: "sample-latency-ms").defaultValue))
        let bandwidth = try #require(Self.number(Self.setting(named: "sample-bandwidth").defaultValue))
        #expect(try Self.attribute("data-prefetch", in: page) == "\(margin)")
        #expect(try Self.attribute("data-prefetch-max", in: page) == "\(margins.upperBound)")
        // The rows' height, set on the page's root before its first paint (app.css restates none).
        #expect(try Self.attribute("style", in: page, after: "<html") == "--row-height: \(Defaults.rowHeight)px")
        let labPrefetch = "name=\"prefetch\""
        #expect(try Self.attribute("value", in: lab, after: labPrefetch) == "\(margin)")
        #expect(try Self.attribute("min", in: lab, after: labPrefetch) == "\(margins.lowerBound)")
        #expect(try Self.attribute("max", in: lab, after: labPrefetch) == "\(margins.upperBound)")
        #expect(try Self.attribute("value", in: lab, after: "name=\"latencyMs\"") == "\(latency)")
        #expect(try Self.attribute("value", in: lab, after: "name=\"bandwidth\"") == "\(bandwidth)")
    }

    static func number(_ value: SettingDefault) -> Int? {
        if case .number(let number) = value { return number }
        return nil
    }
}
