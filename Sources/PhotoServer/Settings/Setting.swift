import Foundation

/// One setting of `classic-photos serve` (and `samples`), declared once: its flag and environment
/// variable (both from `name`), what it does, the values it takes, its default (read from the
/// configuration's own defaults) and where its value goes. `--help`, the reading of flags and
/// environment, the range checks and docs/settings.md's table all come from the declarations in
/// `ServerConfiguration.settings`.
public struct Setting: Sendable {
    /// The flag without its dashes: `photo-count`.
    public let name: String
    /// What it does, for `--help` and the table's last column.
    public let summary: String
    /// A page of docs/ that says more, linked from the table.
    let page: String?
    /// The values it takes and where a value goes.
    let values: Values
    /// The default, said from the configuration's defaults.
    let readDefault: @Sendable (ServerConfiguration) -> SettingDefault

    /// The values a setting takes, and what a value does to the configuration.
    enum Values: Sendable {
        /// A whole number in a range.
        case number(ClosedRange<Int>, SettingUnit?, apply: @Sendable (Int, inout ServerConfiguration) throws -> Void)
        /// Text: one of `choices` (any text when empty); no `apply` for one that a rule reads with others.
        case text(choices: [String], apply: (@Sendable (String, inout ServerConfiguration) throws -> Void)?)
    }

    init(_ name: String, _ summary: String, page: String? = nil, values: Values,
         default readDefault: @escaping @Sendable (ServerConfiguration) -> SettingDefault) {
        (self.name, self.summary, self.page, self.values, self.readDefault) = (name, summary, page, values, readDefault)
    }

    /// `--photo-count`.
    public var flag: String { "--" + name }

    /// `CLASSIC_PHOTOS_PHOTO_COUNT`.
    public var variable: String { "CLASSIC_PHOTOS_" + name.uppercased().replacingOccurrences(of: "-", with: "_") }

    /// What the server does without it.
    public var defaultValue: SettingDefault { readDefault(ServerConfiguration()) }

    /// The numbers it takes; nil for text.
    public var range: ClosedRange<Int>? {
        if case .number(let range, _, _) = values { return range }
        return nil
    }

    /// What a number counts; nil for text and where the summary says it.
    public var unit: SettingUnit? {
        if case .number(_, let unit, _) = values { return unit }
        return nil
    }

    /// The words it takes, where it takes only some.
    public var choices: [String] {
        if case .text(let choices, _) = values { return choices }
        return []
    }

    /// Checks `text` (from the flag, or from the variable when `fromVariable`) and applies it.
    func apply(_ text: String, fromVariable: Bool, to configuration: inout ServerConfiguration) throws(SettingError) {
        do {
            switch values {
            case .number(let range, _, let apply):
                guard let number = Int(text.trimmingCharacters(in: .whitespaces)) else {
                    throw SettingError("\(fromVariable ? variable : flag) must be a whole number, got \(text)")
                }
                guard range.contains(number) else {
                    throw SettingError("\(flag) must be between \(range.lowerBound) and \(range.upperBound), got \(number)")
                }
                try apply(number, &configuration)
            case .text(let choices, let apply):
                // Choices are lower case; `DEBUG` is `debug`.
                let value = choices.isEmpty ? text : text.lowercased()
                guard choices.isEmpty || choices.contains(value) else {
                    throw SettingError(self, must: "be " + Self.inWords(choices), got: text)
                }
                try apply?(value, &configuration)
            }
        } catch let error as SettingError {
            throw error
        } catch {
            throw SettingError("\(flag): \(error)")
        }
    }

    /// "a, b or c".
    static func inWords(_ words: [String]) -> String {
        words.count < 2 ? words.joined() : words.dropLast().joined(separator: ", ") + " or " + words.last!
    }
}

/// A setting's default: a number (said with the setting's unit) or words.
public enum SettingDefault: Sendable, Equatable {
    case number(Int)
    case words(String)
}

/// What a number counts, as the help and the table write it after the number.
public enum SettingUnit: String, Sendable {
    case rows, seconds = "s", milliseconds = "ms", mebibytes = "MiB", bytes, bytesPerSecond = "bytes/s"
    case pixels = "px", megapixels
}

/// A setting given a value it cannot take, or settings that do not go together; the message names
/// the flag (or the variable) and the value.
public struct SettingError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }

    /// "`--flag` must `rule`, got `value`".
    init(_ setting: Setting, must rule: String, got value: String) {
        description = "\(setting.flag) must \(rule), got \(value)"
    }
}
