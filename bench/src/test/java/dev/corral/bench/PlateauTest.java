package dev.corral.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Iterator;
import java.util.List;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/** When a warm-up counts a system's rate as settled (windows as measured on this machine). */
class PlateauTest {
  @Test
  void aDipWhileStillClimbingIsNotAPlateau() {
    assertFalse(Plateau.reached(List.of(153.0, 281.0, 440.0, 566.0, 635.0, 764.0, 729.0)));
    assertFalse(Plateau.reached(List.of(1041.0, 1450.0, 1849.0, 1730.0)));
  }

  @Test
  void threeCloseWindowsInADipAfterHigherOnesAreNotAPlateau() {
    assertFalse(Plateau.reached(List.of(1273.0, 1184.0, 1198.0, 1448.0, 1710.0, 1500.0, 1721.0,
        1183.0, 1082.0, 1111.0)));
  }

  @Test
  void threeCloseWindowsRightAfterAClimbAreNotYetAPlateau() {
    assertFalse(Plateau.reached(List.of(1714.0, 2886.0, 3866.0, 5226.0, 5220.0, 5407.0)));
  }

  @Test
  void threeWindowsWithinTenPercentOfEachOtherAndOfTheThreeBeforeAreAPlateau() {
    assertTrue(Plateau.reached(List.of(1714.0, 2886.0, 3866.0, 5226.0, 5220.0, 5407.0, 5300.0,
        5150.0, 5350.0)));
    assertTrue(Plateau.reached(List.of(1574.0, 1698.0, 1902.0, 2229.0, 1921.0, 1824.0, 1832.0)));
    assertTrue(Plateau.reached(List.of(2280.0, 2419.0, 2465.0, 2517.0)));
  }

  @Test
  void fewerThanThreeWindowsAreNeverAPlateau() {
    assertFalse(Plateau.reached(List.of(5000.0, 5000.0)));
  }

  @Test
  void aWarmUpRunsWindowsUntilTheRatesReachAPlateau() {
    // three equal windows after six: not yet (the three before them were lower); after eight: settled
    Iterator<Double> rates = List.of(100.0, 200.0, 300.0, 400.0, 400.0, 400.0, 400.0, 400.0, 400.0, 400.0).iterator();
    Plateau.Settling settling = Plateau.runUntilSettled(10, 0, 60_000, "ops/s", windowMs -> rates.next());
    assertTrue(settling.settled(), settling.toString());
    assertEquals(List.of(100.0, 200.0, 300.0, 400.0, 400.0, 400.0, 400.0, 400.0), settling.rates());
  }

  @Test
  void aWarmUpRunsAtLeastItsLeastTimeThoughSettledSooner() {
    FakeClock clock = new FakeClock();
    Plateau.Settling settling = Plateau.runUntilSettled(20, 100, 60_000, "ops/s", windowMs -> {
      clock.advanceMs(windowMs);
      return 500.0;
    }, clock);
    assertTrue(settling.settled(), settling.toString());
    assertEquals(5, settling.rates().size(), settling.toString()); // settled after 3, went on to 100 ms
    assertEquals(100, settling.elapsedMs());
  }

  @Test
  void aWarmUpThatNeverSettlesEndsAtItsCapAndSaysSo() {
    FakeClock clock = new FakeClock();
    double[] rate = {100};
    Plateau.Settling settling = Plateau.runUntilSettled(20, 0, 100, "ops/s", windowMs -> {
      clock.advanceMs(windowMs);
      return rate[0] *= 2;
    }, clock);
    assertFalse(settling.settled(), settling.toString());
    assertEquals(5, settling.rates().size(), settling.toString());
    assertTrue(settling.toString().contains("(not settled)"), settling.toString());
  }

  /** Time that passes only as the windows say: the loop's decisions, not this machine's speed, are tested. */
  private static final class FakeClock implements LongSupplier {
    private long nanos;

    void advanceMs(long ms) {
      nanos += ms * 1_000_000;
    }

    @Override
    public long getAsLong() {
      return nanos;
    }
  }
}
