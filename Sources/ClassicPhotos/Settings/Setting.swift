import Foundation
import ArgumentParser

/// One setting of `classic-photos serve`, described once: its flag, its environment variable, its
/// default, its range and unit, its help. The `@Option`s' names and help, the reading of flags and
/// environment, the range checks and the README's configuration table all come from here
/// (`SettingsTableTests` holds the README, `--help`, the environment and the pages to it).
/// The keys are enum cases, so a misspelled setting does not compile.
protocol Setting: CaseIterable, Sendable {
    /// The flag without its dashes: `photo-count`.
    var name: String { get }
    /// One or two sentences for `--help`, ending with a full stop.
    var summary: String { get }
    /// What the server does without it.
    var defaultValue: SettingDefault { get }
    /// The values it takes, as the help and the README's range column say them; "" for any.
    var rangeText: String { get }
}

extension Setting where Self: RawRepresentable, RawValue == String {
    /// A table's settings are enum cases whose raw values are their names.
    var name: String { rawValue }
}

/// A setting's default: a number (said with the setting's unit) or words.
enum SettingDefault: Sendable, Equatable {
    case number(Int)
    case words(String)
}

extension Setting {
    /// `--photo-count`.
    var flag: String { "--" + name }

    /// `CLASSIC_PHOTOS_PHOTO_COUNT`.
    var variable: String { "CLASSIC_PHOTOS_" + name.uppercased().replacingOccurrences(of: "-", with: "_") }

    /// The default as `--help` prints it: `10 s`, `none`.
    var defaultText: String {
        switch defaultValue {
        case .number(let value): [String(value), unitText].filter { !$0.isEmpty }.joined(separator: " ")
        case .words(let words): words
        }
    }

    /// The default, where it is a number.
    var defaultNumber: Int? {
        if case .number(let value) = defaultValue { return value }
        return nil
    }

    /// The unit after a number; "" for none.
    var unitText: String { (self as? NumberSetting)?.unit?.rawValue ?? "" }

    /// The `@Option` help: the summary, the range, the variable and the default.
    var help: ArgumentHelp {
        let range = rangeText.isEmpty ? "" : " \(rangeText)."
        return ArgumentHelp("\(summary)\(range) [env: \(variable)] (default: \(defaultText))")
    }

    /// The `@Option` name.
    var argumentName: NameSpecification { .customLong(name) }

    /// The README configuration table's first four columns: flag, variable, default, range.
    var readmeColumns: [String] {
        let quoted: String
        switch defaultValue {
        case .number(let value): quoted = ["`\(value)`", unitText].filter { !$0.isEmpty }.joined(separator: " ")
        case .words(let words): quoted = words
        }
        return ["`\(flag)`", "`\(variable)`", quoted, rangeText.isEmpty ? "" : readmeRange]
    }

    /// The range with its numbers in code quotes: `` `0` to `50` rows ``.
    private var readmeRange: String {
        guard let number = self as? NumberSetting else { return rangeText }
        return ["`\(number.range.lowerBound)` to `\(number.range.upperBound)`", unitText].filter { !$0.isEmpty }.joined(separator: " ")
    }
}

/// Every setting, numbers then words.
enum AllSettings {
    static let all: [any Setting] = NumberSetting.allCases + TextSetting.allCases
}

extension Option {
    /// An optional flag named and described by its row of the settings table: `@Option(NumberSetting.port) var port: Int?`.
    init<T: ExpressibleByArgument>(_ setting: some Setting) where Value == T? {
        self.init(name: setting.argumentName, help: setting.help)
    }
}
