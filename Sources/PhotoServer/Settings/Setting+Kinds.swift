/// The shapes most settings take: a value stored in one field of the configuration, its default
/// read from that field.
extension Setting {
    /// A whole number stored in `field`, `scale` to a unit (a MiB setting stores bytes); the
    /// default in `words` where the field's own is not the one to say.
    static func number(
        _ name: String, _ summary: String, _ range: ClosedRange<Int>, _ unit: SettingUnit? = nil, page: String? = nil,
        at field: any WritableKeyPath<ServerConfiguration, Int> & Sendable, scale: Int = 1, shown words: String? = nil
    ) -> Setting {
        Setting(name, summary, page: page, values: .number(range, unit) { $1[keyPath: field] = $0 * scale }) {
            words.map(SettingDefault.words) ?? .number($0[keyPath: field] / scale)
        }
    }

    /// A whole number stored in an optional `field`; without it the server derives one, as `words` say.
    static func number(
        _ name: String, _ summary: String, _ range: ClosedRange<Int>, _ unit: SettingUnit? = nil, page: String? = nil,
        at field: any WritableKeyPath<ServerConfiguration, Int?> & Sendable, scale: Int = 1, otherwise words: String
    ) -> Setting {
        Setting(name, summary, page: page, values: .number(range, unit) { $1[keyPath: field] = $0 * scale }) { _ in .words(words) }
    }

    /// A time in whole seconds (or milliseconds) stored in `field`.
    static func time(
        _ name: String, _ summary: String, _ range: ClosedRange<Int>, _ unit: SettingUnit = .seconds,
        at field: any WritableKeyPath<ServerConfiguration, Duration> & Sendable
    ) -> Setting {
        let perSecond = unit == .milliseconds ? 1_000 : 1
        return Setting(name, summary, values: .number(range, unit) { $1[keyPath: field] = .seconds($0) / perSecond }) {
            let time = $0[keyPath: field].components
            return .number(Int(time.seconds) * perSecond + Int(time.attoseconds / (1_000_000_000_000_000_000 / Int64(perSecond))))
        }
    }

    /// Text stored in `field` as given; its default is the field's.
    static func text(_ name: String, _ summary: String, at field: any WritableKeyPath<ServerConfiguration, String> & Sendable) -> Setting {
        Setting(name, summary, values: .text(choices: []) { $1[keyPath: field] = $0 }) { .words($0[keyPath: field]) }
    }

    /// Text stored in an optional `field`; without it, what `words` say.
    static func text(
        _ name: String, _ summary: String, page: String? = nil,
        at field: any WritableKeyPath<ServerConfiguration, String?> & Sendable, otherwise words: String
    ) -> Setting {
        Setting(name, summary, page: page, values: .text(choices: []) { $1[keyPath: field] = $0 }) { _ in .words(words) }
    }
}
