import ArgumentParser
@testable import ClassicPhotos
import Foundation
import HTTPTransfer
import PhotoPipeline
import PhotoServer
import PhotoWeb
import Testing

/// The settings table (`NumberSetting`, `TextSetting`) is the one place a setting is written: each of
/// `--help`, the environment, the README's configuration table and the pages' numbers fails a test here
/// when it says otherwise.
@Suite("Settings: one table, said by --help, the environment, the README and the pages")
struct SettingsTableTests {
    /// README.md and the pages of docs/ (the settings table is docs/settings.md's), one after the other.
    static let readme: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let docs = root.appendingPathComponent("docs")
        let pages = ((try? FileManager.default.contentsOfDirectory(atPath: docs.path)) ?? []).filter { $0.hasSuffix(".md") }.sorted()
        return ([root.appendingPathComponent("README.md")] + pages.map { docs.appendingPathComponent($0) })
            .map { (try? String(contentsOf: $0, encoding: .utf8)) ?? "" }.joined(separator: "\n")
    }()

    /// The README configuration table's rows, each split into its columns.
    static var readmeRows: [[String]] {
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let head = lines.firstIndex(where: { $0.hasPrefix("| flag | environment | default | range |") }) else { return [] }
        return lines[(head + 2)...].prefix { $0.hasPrefix("|") }.map { row in
            row.dropFirst(2).dropLast(2).components(separatedBy: " | ").map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    static let help = ServeCommand.helpMessage(columns: 10_000)

    static var names: [String] { AllSettings.all.map(\.name) }

    static func setting(named name: String) throws -> any Setting {
        try #require(AllSettings.all.first { $0.name == name })
    }

    @Test func theREADMEHasOneRowASettingAndNoOther() {
        #expect(Self.readmeRows.map { $0.first ?? "" }.sorted() == AllSettings.all.map { "`\($0.flag)`" }.sorted())
    }

    @Test(arguments: names)
    func theREADMERowSaysTheTablesVariableDefaultAndRange(name: String) throws {
        let setting = try Self.setting(named: name)
        let row = try #require(Self.readmeRows.first { $0.first == "`\(setting.flag)`" }, "no README row for \(setting.flag)")
        #expect(Array(row.prefix(4)) == setting.readmeColumns, "README row of \(setting.flag); `classic-photos settings` prints the table's")
    }

    @Test(arguments: names)
    func theHelpNamesTheFlagAndSaysTheTablesHelp(name: String) throws {
        let setting = try Self.setting(named: name)
        #expect(Self.help.contains("  \(setting.flag) <"), "--help lists \(setting.flag)")
        #expect(Self.help.contains(setting.help.abstract), "--help of \(setting.flag)")
        #expect(setting.help.abstract.contains("[env: \(setting.variable)] (default: \(setting.defaultText))"))
    }

    @Test func aNumbersHelpSaysItsRangeAndUnit() {
        #expect(Self.help.contains("--strategy prefetch. 0 to 50 rows. [env: CLASSIC_PHOTOS_PREFETCH] (default: 3 rows)"))
        #expect(Self.help.contains("eager, visible, prefetch or serial. [env: CLASSIC_PHOTOS_STRATEGY] (default: prefetch)"))
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
    static let textExamples: [TextSetting: String] = [
        .host: "::", .basePath: "/demo", .source: "list.json", .photosDir: "photos", .strategy: "visible",
        .cacheDir: "/tmp/x", .allowSourceHost: "10.0.0.0/8", .publicDir: "P", .templatesDir: "T", .trustedProxy: "10.1.0.0/16",
        .logLevel: "debug", .databaseUrl: "postgres://a@127.0.0.1/x", .instanceName: "other", .tlsCert: "c.pem", .tlsKey: "k.pem",
    ]

    @Test(arguments: names)
    func theVariableIsReadAsTheFlagIs(name: String) throws {
        let setting = try Self.setting(named: name)
        let values: [String]
        if let number = setting as? NumberSetting {
            values = [String(number.range.lowerBound), String(number.range.upperBound)]
        } else {
            let text = try #require(setting as? TextSetting)
            values = [try #require(Self.textExamples[text], "an example for \(setting.flag)")]
        }
        for value in values {
            let byFlag = Self.outcome([setting.flag, value], [:])
            #expect(byFlag == Self.outcome([], [setting.variable: value]), "\(setting.flag) \(value) and \(setting.variable)=\(value)")
            #expect(byFlag != Self.outcome([], [:]) || byFlag.hasPrefix("error") || setting.defaultValue == .number(Int(value) ?? -1)
                || setting.defaultText == value, "\(setting.flag) \(value) changes nothing")
        }
    }

    @Test(arguments: NumberSetting.allCases)
    func aNumberOutsideItsRangeIsRefusedFromEitherPlace(setting: NumberSetting) {
        let range = setting.range
        let reason = "error: \(setting.flag) must be between \(range.lowerBound) and \(range.upperBound), got \(range.upperBound + 1)"
        #expect(Self.outcome([setting.flag, String(range.upperBound + 1)], [:]) == reason)
        #expect(Self.outcome([], [setting.variable: String(range.upperBound + 1)]) == reason)
    }

    @Test func theREADMEsContractAndPageSayTheTablesNumbers() {
        let margins = NumberSetting.prefetch.range
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

        let prefetch = NumberSetting.prefetch
        // The pace the server measures a scroll from, as both pages report it.
        let interval = "\(Int(ScrollMotion.reportInterval * 1_000))"
        #expect(try Self.attribute("data-report-interval-ms", in: page) == interval)
        #expect(try Self.attribute("data-report-interval-ms", in: lab) == interval)
        #expect(try Self.attribute("data-strategy", in: page) == TextSetting.strategy.defaultText)
        let margin = try #require(prefetch.defaultNumber)
        let latency = try #require(NumberSetting.sampleLatencyMs.defaultNumber), bandwidth = try #require(NumberSetting.sampleBandwidth.defaultNumber)
        #expect(try Self.attribute("data-prefetch", in: page) == "\(margin)")
        #expect(try Self.attribute("data-prefetch-max", in: page) == "\(prefetch.range.upperBound)")
        // The rows' height, set on the page's root before its first paint (app.css restates none).
        #expect(try Self.attribute("style", in: page, after: "<html") == "--row-height: \(Defaults.rowHeight)px")
        let labPrefetch = "name=\"prefetch\""
        #expect(try Self.attribute("value", in: lab, after: labPrefetch) == "\(margin)")
        #expect(try Self.attribute("min", in: lab, after: labPrefetch) == "\(prefetch.range.lowerBound)")
        #expect(try Self.attribute("max", in: lab, after: labPrefetch) == "\(prefetch.range.upperBound)")
        #expect(try Self.attribute("value", in: lab, after: "name=\"latencyMs\"") == "\(latency)")
        #expect(try Self.attribute("value", in: lab, after: "name=\"bandwidth\"") == "\(bandwidth)")
    }
}
