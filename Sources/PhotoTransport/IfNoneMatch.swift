package import HTTPTypes

/// A request's `If-None-Match` as RFC 9110 §13.1.2 reads it: `*`, or a comma-separated list of
/// entity tags (over one field line or several), each compared weakly (§8.8.3.2: `W/"x"` matches
/// `"x"` and `W/"x"`). The one reading of the field for every path that answers 304 (the router's
/// handlers and the event loop's ready answers).
package enum IfNoneMatch {
    /// Whether `fields`' `If-None-Match` matches the current representation tagged `tag` (a 304 will
    /// do): the field is `*`, or one of its entity tags has `tag`'s opaque part. No field, or a
    /// field with no well-formed entity tag, matches nothing.
    package static func matches(_ fields: HTTPFields, currentTag tag: String) -> Bool {
        let values = fields[values: .ifNoneMatch]
        guard !values.isEmpty, let current = opaqueTag(of: Substring(tag)) else { return false }
        return values.contains { value in
            members(of: value).contains { $0 == "*" || opaqueTag(of: $0) == current }
        }
    }

    /// The list's members, outer whitespace trimmed, empty ones left out: split at commas outside
    /// quotes (an opaque tag may hold a comma).
    static func members(of value: String) -> [Substring] {
        var members: [Substring] = []
        var start = value.startIndex
        var quoted = false
        var index = value.startIndex
        while index < value.endIndex {
            let character = value[index]
            if character == "\"" {
                quoted.toggle()
            } else if character == ",", !quoted {
                members.append(value[start..<index])
                start = value.index(after: index)
            }
            index = value.index(after: index)
        }
        members.append(value[start...])
        return members.map(trimmed).filter { !$0.isEmpty }
    }

    /// An entity tag's opaque part with its quotes (`"x"` of `W/"x"` and of `"x"`), or nil for
    /// anything that is not an entity tag (no quotes, a quote inside, a lowercase `w/`).
    static func opaqueTag(of member: Substring) -> Substring? {
        let opaque = member.hasPrefix("W/") ? member.dropFirst(2) : member
        guard opaque.count >= 2, opaque.first == "\"", opaque.last == "\"",
              !opaque.dropFirst().dropLast().contains("\"") else { return nil }
        return opaque
    }

    private static func trimmed(_ text: Substring) -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else { return "" }
        return text[first...last]
    }
}
