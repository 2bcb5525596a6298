import Foundation

/// A setting given a value it cannot take; the message names the flag and the value.
struct SettingError: Error, CustomStringConvertible {
    let description: String

    init(description: String) {
        self.description = description
    }

    /// "`--flag` must `rule`, got `value`".
    init(_ setting: some Setting, must rule: String, got value: String) {
        description = "\(setting.flag) must \(rule), got \(value)"
    }
}

/// Reads one setting from its flag or, failing that, its environment variable, and checks a number
/// against the setting's range.
struct SettingValues {
    let environment: [String: String]

    func string(_ setting: TextSetting, _ value: String?) -> String? {
        if let value { return value }
        guard let text = environment[setting.variable], !text.isEmpty else { return nil }
        return text
    }

    func int(_ setting: NumberSetting, _ value: Int?) throws(SettingError) -> Int? {
        let number: Int
        if let value {
            number = value
        } else if let text = environment[setting.variable], !text.isEmpty {
            guard let parsed = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw SettingError(description: "\(setting.variable) must be a whole number, got \(text)")
            }
            number = parsed
        } else {
            return nil
        }
        let range = setting.range
        guard range.contains(number) else {
            throw SettingError(description: "\(setting.flag) must be between \(range.lowerBound) and \(range.upperBound), got \(number)")
        }
        return number
    }
}
