extension ServerConfiguration {
    /// The configuration `arguments` (`--name value` or `--name=value`) and `environment`
    /// (`CLASSIC_PHOTOS_NAME`) make: each setting from its flag, else its variable, else its default,
    /// checked and applied in the order of `settings`, then those that only make sense together (`applyTogether`).
    public init(arguments: [String], environment: [String: String]) throws(SettingError) {
        let flags = try Self.flags(arguments)
        self.init()
        var given: [String: String] = [:]
        for setting in Self.settings {
            let variable = environment[setting.variable].flatMap { $0.isEmpty ? nil : $0 }
            guard let text = flags[setting.name] ?? variable else { continue }
            try setting.apply(text, fromVariable: flags[setting.name] == nil, to: &self)
            given[setting.name] = text
        }
        try Self.applyTogether(given, to: &self)
    }

    /// The value of each flag in `arguments` by the setting's name; the last wins.
    static func flags(_ arguments: [String]) throws(SettingError) -> [String: String] {
        var flags: [String: String] = [:], rest = arguments[...]
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("--") else { throw SettingError("unexpected argument '\(argument)'") }
            let parts = argument.dropFirst(2).split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            guard settings.contains(where: { $0.name == name }) else { throw SettingError("unknown option '--\(name)'") }
            guard let value = parts.count == 2 ? String(parts[1]) : rest.popFirst() else { throw SettingError("--\(name) needs a value") }
            flags[name] = value
        }
        return flags
    }
}
