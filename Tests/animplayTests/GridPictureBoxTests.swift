import Testing
@testable import AnimatedCore
@testable import AnimatedTerminal
@testable import animplay

/// The grid's one picture (the whole box) within the terminal's largest picture.
@Suite struct GridPictureBoxTests {
    let cell = RenderSize(width: 6, height: 13)

    @Test func noLimitIsTheWholeBox() {
        let b = GridLoop.pictureBox(rows: 59, columns: 200, cell: cell, maxPicture: nil)
        #expect(b == (59, 200, 0, 0))
    }

    @Test func xtermsLimitTakesWholeCellsCentred() {
        // 1200x767 pixels; 1000 pixels hold 166 columns of 6 (996 pixels); the 767 rows fit.
        let b = GridLoop.pictureBox(rows: 59, columns: 200, cell: cell, maxPicture: RenderSize(width: 1000, height: 1000))
        #expect(b == (59, 166, 0, 17))
        #expect(b.columns * cell.width <= 1000 && b.rows * cell.height <= 1000)
        // Odd limits in both directions.
        let odd = GridLoop.pictureBox(rows: 59, columns: 200, cell: cell, maxPicture: RenderSize(width: 601, height: 389))
        #expect(odd == (29, 100, 15, 50))
    }

    @Test func aLimitBeyondTheBoxChangesNothingAndATinyOneKeepsOneCell() {
        #expect(GridLoop.pictureBox(rows: 59, columns: 200, cell: cell, maxPicture: RenderSize(width: 10000, height: 10000)) == (59, 200, 0, 0))
        #expect(GridLoop.pictureBox(rows: 59, columns: 200, cell: cell, maxPicture: RenderSize(width: 1, height: 1)) == (1, 1, 29, 99))
    }
}
