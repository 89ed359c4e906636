package dev.corral.recipes.election;

/**
 * Told when a {@link LeaderLatch} gains or loses leadership, in order, on the
 * executor given when it was added. Calls alternate: {@code isLeader},
 * {@code notLeader}, {@code isLeader}, ...
 */
public interface LeaderLatchListener {
  /** This latch became leader. */
  void isLeader();

  /** This latch is no longer leader (it left, lost its connection or its session, or was closed with NOTIFY_LEADER). */
  void notLeader();
}
