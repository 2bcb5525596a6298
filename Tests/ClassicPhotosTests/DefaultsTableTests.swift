import Foundation
@testable import ClassicPhotos
import PhotoPipeline
import PhotoWeb
import Testing
import ArgumentParser

/// The defaults table (`Defaults`) is the one place its numbers are written: the `serve --help`
/// text prints them, and the README says the same numbers.
@Suite("Defaults: one table, printed by the help and said by the README")
struct DefaultsTableTests {
    /// README.md at the top of the repository.
    static let readme: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return (try? String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""
    }()

    /// The README's configuration row for `flag`: its default column.
    static func readmeDefault(of flag: String) throws -> String {
        let row = try #require(readme.split(separator: "\n").first { $0.hasPrefix("| `\(flag)` |") }, "no README row for \(flag)")
        return String(row.split(separator: "|", omittingEmptySubsequences: false)[3]).trimmingCharacters(in: .whitespaces)
    }

    @Test func theHelpPrintsTheTablesDefaultsAndNames() {
        let help = ServeCommand.helpMessage(columns: 10_000)
        #expect(help.contains("--strategy prefetch, \(Defaults.prefetchMargins.lowerBound) to \(Defaults.prefetchMargins.upperBound). [env: CLASSIC_PHOTOS_PREFETCH] (default: \(Defaults.prefetchMargin))"))
        #expect(help.contains("\(SchedulingStrategy.names.joined(separator: ", ")). [env: CLASSIC_PHOTOS_STRATEGY] (default: \(Defaults.strategy.name))"))
    }

    @Test func theREADMEsConfigurationSaysTheTablesNumbers() throws {
        let margins = Defaults.prefetchMargins
        #expect(try Self.readmeDefault(of: "--prefetch").hasPrefix("`\(Defaults.prefetchMargin)` rows (`\(margins.lowerBound)` to `\(margins.upperBound)`)"))
        let names = SchedulingStrategy.names.map { "`\($0)`" }.joined(separator: ", ")
        #expect(try Self.readmeDefault(of: "--strategy") == "`\(Defaults.strategy.name)` (\(names))")
    }

    @Test(arguments: ServeDefaults.numbers.map(\.flag))
    func theREADMEAndTheHelpGiveEveryNumericDefaultAsTheConfigurationHasIt(flag: String) throws {
        let value = ServeDefaults.number(flag)
        #expect(try Self.readmeDefault(of: "--\(flag)").hasPrefix("`\(value)`"), "README row of --\(flag)")
        #expect(ServeCommand.helpMessage(columns: 10_000).contains("(default: \(value))"))
    }

    @Test func theREADMEsContractAndPageSayTheTablesNumbers() {
        let margins = "\"prefetch\": \(Defaults.prefetchMargins.lowerBound)-\(Defaults.prefetchMargins.upperBound)"
        #expect(Self.readme.contains("`\(margins)`"), "POST /api/viewport's prefetch range")
        #expect(Self.readme.contains("with `prefetch` \(Defaults.prefetchMargins.lowerBound)-\(Defaults.prefetchMargins.upperBound)"), "POST /api/labs' prefetch range")
        #expect(Self.readme.contains("a virtualised list of \(Defaults.rowHeight) px rows"))
        let apiNames = SchedulingStrategy.names.map { "\"\($0)\"" }.joined(separator: "\\|")
        #expect(Self.readme.contains("`\"strategy\": \(apiNames)`"), "POST /api/viewport's strategy names")
    }
}
