@testable import PhotoPipeline
import Testing

@Suite("Demand: who wants which photo, and who is scrolling")
struct DemandTests {
    let reader = ViewerID("reader")
    let scroller = ViewerID("scroller")

    @Test func aPhotoIsLetGoOnlyWhenItsLastViewerReleasesIt() {
        // Given two viewers wanting photo 3
        var demand = Demand()
        demand.want(3, .visible, by: reader)
        demand.want(3, .prefetch, by: scroller)

        // When one lets go, then the other
        let firstLetGo = demand.release(3, by: reader)
        let lastLetGo = demand.release(3, by: scroller)

        // Then only the last release frees it, and each viewer's rows follow
        #expect(!firstLetGo && lastLetGo)
        #expect(!demand.isWanted(3))
        #expect(demand.rows(wantedBy: reader).isEmpty && demand.rows(wantedBy: scroller).isEmpty)
    }

    @Test func theHighestPriorityAmongViewersNotScrollingWins() {
        var demand = Demand()
        demand.want(1, .prefetch, by: reader)
        demand.want(1, .visible, by: scroller)

        // While both read, the visible row wins
        #expect(demand.scheduling(of: 1) == .init(priority: .visible, mayStart: true))
        // A scrolling viewer's priority does not count while another reads
        demand.setScrolling(true, for: scroller)
        #expect(demand.scheduling(of: 1) == .init(priority: .prefetch, mayStart: true))
        // With everyone scrolling nothing may start, at the highest priority of all
        demand.setScrolling(true, for: reader)
        #expect(demand.scheduling(of: 1) == .init(priority: .visible, mayStart: false))
        // Nobody wanting a photo leaves it closed, in the background
        #expect(demand.scheduling(of: 2) == .init(priority: .background, mayStart: false))
    }

    @Test func aDonePhotoIsForgottenByEveryViewerAndScrollingOutlivesForgetting() {
        var demand = Demand()
        for index in 0...2 { demand.want(index, .visible, by: reader) }
        demand.want(1, .visible, by: scroller)
        demand.setScrolling(true, for: scroller)

        demand.forget(1)
        #expect(demand.rows(wantedBy: reader) == [0, 2])
        #expect(demand.rows(wantedBy: scroller).isEmpty)

        demand.forgetAllWants()
        #expect(demand.rows(wantedBy: reader).isEmpty && !demand.isWanted(0))
        #expect(demand.isScrolling(scroller))

        demand.remove(scroller)
        #expect(!demand.isScrolling(scroller))
    }
}
