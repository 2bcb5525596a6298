/// Where a presenter is: the rows on its screen and whether it is scrolling, as its last report said.
struct PresenterPosition: Sendable, Equatable {
    var rows: ClosedRange<Int>
    var scrolling: Bool
}
