import Foundation
@testable import PhotoWeb
import PhotoPipeline
import Testing

/// Issue 37: followers are handed the list's events once a pace, each row's updates folded.
@Suite("Follower relay")
struct FollowerRelayTests {
    func photo(_ index: Int, _ state: String) -> FollowerRelay.Item {
        .payload(.init(name: .photo, data: Data(#"{"index":\#(index),"state":"\#(state)"}"#.utf8), photoIndex: index))
    }

    func text(_ item: FollowerRelay.Item) -> String {
        switch item {
        case .payload(let payload): String(decoding: payload.data, as: UTF8.self)
        case .operation(let others, _, _): "op " + String(decoding: others.data, as: UTF8.self)
        }
    }

    @Test func eachRowsUpdatesFoldToTheLatestWhereItCameAndEverythingElseIsKeptInOrder() {
        let partial = FollowerRelay.Item.payload(.partialPreview(3, .downloading(progress: 0.5), sequence: 1))
        let operation = FollowerRelay.Item.operation(
            others: .init(name: .operation, data: Data(#"{"index":3}"#.utf8)),
            own: .init(name: .operation, data: Data(#"{"index":3,"mine":true}"#.utf8)), viewers: [])
        let items = [photo(3, "downloading"), operation, photo(4, "downloading"), partial, photo(3, "downloaded"), photo(3, "filtered")]

        let folded = FollowerRelay.folded(items).map(text)

        #expect(folded.count == 4, "\(folded)")
        #expect(folded[0].hasPrefix("op "))
        #expect(folded[1].contains(#""index":4"#))
        #expect(folded[2].contains(#""partial":1"#))
        #expect(folded[3].contains("filtered"))
    }
}
