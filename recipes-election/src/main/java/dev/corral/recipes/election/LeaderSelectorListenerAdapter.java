package dev.corral.recipes.election;

import dev.corral.client.ConnectionState;
import dev.corral.client.CoordinationClient;

/**
 * For code ported from Curator: a {@link LeaderSelectorListener} whose
 * {@code stateChanged} cancels leadership on SUSPENDED and LOST by throwing
 * {@link CancelLeadershipException}. (Corral's selector interrupts the leader
 * on those states anyway; extending this class changes nothing but spelling.)
 * Abstract, unlike the module's other public types, because it exists to be
 * extended as Curator's is.
 */
public abstract class LeaderSelectorListenerAdapter implements LeaderSelectorListener {
  @Override
  public void stateChanged(CoordinationClient client, ConnectionState newState) {
    if (newState == ConnectionState.SUSPENDED || newState == ConnectionState.LOST) {
      throw new CancelLeadershipException("connection " + newState);
    }
  }
}
