/// How `--help` and docs/settings.md say a setting.
extension Setting {
    /// The values it takes: `0 to 50 rows`, `eager, visible, prefetch or serial`; "" for any.
    public var rangeText: String {
        switch values {
        case .number(let range, let unit, _): [String(range.lowerBound) + " to " + String(range.upperBound), unit?.rawValue ?? ""].joinedWords
        case .text(let choices, _): Self.inWords(choices)
        }
    }

    /// The default as `--help` says it: `10 s`, `none`.
    public var defaultText: String {
        switch defaultValue {
        case .number(let value): [String(value), unit?.rawValue ?? ""].joinedWords
        case .words(let words): words
        }
    }

    /// The setting's entry in `--help`: its flag, then the summary, values, variable and default
    /// wrapped to 78 columns under it.
    public var helpEntry: String {
        let values = rangeText.isEmpty ? "" : " \(rangeText)."
        let more = page.map { " See docs/\($0)." } ?? ""
        let text = "\(summary)\(values)\(more) [env: \(variable)] (default: \(defaultText))"
        var lines = ["  \(flag) <\(range == nil ? "value" : "n")>"], line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, 8 + line.count + 1 + word.count > 78 {
                lines.append(String(repeating: " ", count: 8) + line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        return (lines + [String(repeating: " ", count: 8) + line]).joined(separator: "\n")
    }

    /// The setting's row of docs/settings.md: flag, variable, default, values, what it does.
    public var markdownRow: String {
        let quotedDefault: String
        switch defaultValue {
        case .number(let value): quotedDefault = ["`\(value)`", unit?.rawValue ?? ""].joinedWords
        case .words(let words): quotedDefault = words
        }
        let values = range.map { ["`\($0.lowerBound)` to `\($0.upperBound)`", unit?.rawValue ?? ""].joinedWords } ?? rangeText
        let more = page.map { " ([\($0)](\($0)))" } ?? ""
        return "| `\(flag)` | `\(variable)` | \(quotedDefault) | \(values) | \(summary)\(more) |"
    }
}

extension ServerConfiguration {
    /// Every setting's `--help` entry.
    public static var settingsHelp: String {
        "SETTINGS (each a flag or its environment variable; the flag wins):\n" + settings.map(\.helpEntry).joined(separator: "\n")
    }

    /// The settings table of docs/settings.md, as `classic-photos settings` prints it.
    public static var settingsTable: String {
        (["| flag | environment | default | range | what it does |", "|---|---|---|---|---|"] + settings.map(\.markdownRow))
            .joined(separator: "\n")
    }
}

extension [String] {
    /// The non-empty ones, a space between.
    fileprivate var joinedWords: String { filter { !$0.isEmpty }.joined(separator: " ") }
}
