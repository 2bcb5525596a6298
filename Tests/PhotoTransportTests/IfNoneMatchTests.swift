import HTTPTypes
import Testing
@testable import PhotoTransport

/// `If-None-Match` read as RFC 9110 §13.1.2 says: weak comparison, lists over one line or several,
/// `*`; anything that is not an entity tag matches nothing.
@Suite("If-None-Match")
struct IfNoneMatchTests {
    private func matches(_ values: [String], _ tag: String = "\"abc\"") -> Bool {
        var fields = HTTPFields()
        for value in values { fields.append(HTTPField(name: .ifNoneMatch, value: value)) }
        return IfNoneMatch.matches(fields, currentTag: tag)
    }

    @Test func theSameStrongTagMatches() {
        #expect(matches(["\"abc\""]))
        #expect(!matches(["\"abd\""]))
    }

    @Test func aWeakTagMatchesItsStrongTwinAndAWeakCurrentTag() {
        #expect(matches(["W/\"abc\""]))
        #expect(matches(["\"abc\""], "W/\"abc\""))
        #expect(matches(["W/\"abc\""], "W/\"abc\""))
        #expect(!matches(["W/\"abd\""]))
    }

    @Test func anyTagOfAListMatches() {
        #expect(matches(["\"x\", \"abc\""]))
        #expect(matches(["\"x\",W/\"abc\" , \"y\""]))
        #expect(matches(["\"x\"", "W/\"abc\""]))  // two field lines
        #expect(!matches(["\"x\", \"y\""]))
    }

    @Test func aStarMatchesAnyTag() {
        #expect(matches(["*"]))
        #expect(matches([" * "]))
        #expect(matches(["\"x\", *"]))
    }

    @Test func aCommaInsideATagDoesNotSplitIt() {
        #expect(matches(["\"a,b\""], "\"a,b\""))
        #expect(!matches(["\"a,b\""], "\"a\""))
    }

    @Test func whatIsNotAnEntityTagMatchesNothing() {
        #expect(!matches([]))
        #expect(!matches([""]))
        #expect(!matches(["abc"]))  // unquoted
        #expect(!matches(["w/\"abc\""]))  // the weak prefix is case-sensitive
        #expect(!matches(["\"ab\"c\""], "\"ab\"c\""))
        #expect(!matches(["\"abc"]))
        #expect(!matches(["**"]))
    }

    @Test func theMembersOfAList() {
        #expect(IfNoneMatch.members(of: " \"a\" ,, W/\"b,c\"\t,") == ["\"a\"", "W/\"b,c\""])
    }
}
