package dev.corral.server.tree;

/**
 * Zxids: the i-th txn of the log entry at Raft index n has zxid {@code (n << 16) | i}.
 * Unique and increasing across leaders, but not contiguous.
 */
public final class Zxid {
  /** Most txns one log entry may carry. */
  public static final int MAX_TXNS_PER_ENTRY = 1 << 16;

  private Zxid() {}

  public static long of(long logIndex, int position) {
    if (position < 0 || position >= MAX_TXNS_PER_ENTRY) {
      throw new IllegalArgumentException("position " + position + " outside [0, " + MAX_TXNS_PER_ENTRY + ")");
    }
    return (logIndex << 16) | position;
  }

  public static long logIndex(long zxid) {
    return zxid >>> 16;
  }
}
