package dev.corral.recipes.election;

import dev.corral.client.ConnectionState;
import dev.corral.client.ConnectionStateListener;
import dev.corral.client.CoordinationClient;

/**
 * What a {@link LeaderSelector} runs while its participant leads.
 *
 * <p>{@link #takeLeadership} runs on the selector's thread; leadership lasts
 * until it returns (or throws). The selector interrupts that thread on
 * SUSPENDED and LOST (the connection, and with it the guarantee that no one
 * else leads, is gone), on {@link LeaderSelector#interruptLeadership()} and on
 * {@link LeaderSelector#close()}: leadership code must stop promptly when
 * interrupted.
 *
 * <p>{@link #stateChanged} is told of every connection state change on the
 * client's event thread (it must not block); throwing
 * {@link CancelLeadershipException} from it interrupts the leader, as Curator's.
 * By default it does nothing (the selector interrupts the leader itself).
 */
@FunctionalInterface
public interface LeaderSelectorListener extends ConnectionStateListener {
  /**
   * Leads until it returns; must stop promptly when interrupted. Whatever it
   * throws ends this turn only (logged), as in Curator, whose signature this is.
   */
  void takeLeadership(CoordinationClient client) throws Exception;

  @Override
  default void stateChanged(CoordinationClient client, ConnectionState newState) {}
}
