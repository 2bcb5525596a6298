/// The running presentations of one audience (the list's, or the labs') by follow code, and the codes
/// that ended lately, so a late follower is told "ended", not "no such". Kept under its owner's lock.
struct PresentationCodes<Presentation> {
    /// Ended codes remembered: enough for the links of a day's talks, bounded whatever a client does.
    static var endedRemembered: Int { 1_024 }

    private(set) var byCode: [FollowCode: Presentation] = [:]
    /// Codes that ended lately, oldest first, and the same as a set.
    private var ended: [FollowCode] = []
    private var endedSet: Set<FollowCode> = []

    /// The running presentation `code`, if any.
    subscript(code: FollowCode) -> Presentation? {
        get { byCode[code] }
        set { byCode[code] = newValue }
    }

    /// Every running presentation.
    var running: Dictionary<FollowCode, Presentation>.Values { byCode.values }

    /// Whether `code` ended lately.
    func hasEnded(_ code: FollowCode) -> Bool { endedSet.contains(code) }

    /// The 404 for `code` when it does not run: "ended" for one that ended lately.
    func gone(_ code: FollowCode) -> APIError {
        hasEnded(code) ? .notFound("this presentation has ended") : .notFound("no such presentation: check the follow link")
    }

    /// Ends `code`: it runs no more and is remembered as ended.
    mutating func end(_ code: FollowCode) {
        byCode[code] = nil
        ended.append(code)
        endedSet.insert(code)
        if ended.count > Self.endedRemembered { endedSet.remove(ended.removeFirst()) }
    }
}
