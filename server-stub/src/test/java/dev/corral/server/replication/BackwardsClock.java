package dev.corral.server.replication;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** A clock that goes back by a fixed step every time it is read. */
final class BackwardsClock extends Clock {
  private final AtomicLong nextMillis;
  private final long stepMillis;

  BackwardsClock(long startMillis, long stepMillis) {
    this.nextMillis = new AtomicLong(startMillis);
    this.stepMillis = stepMillis;
  }

  @Override
  public long millis() {
    return nextMillis.getAndAdd(-stepMillis);
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis());
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException();
  }
}
