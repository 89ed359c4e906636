package dev.corral.recipes.election;

import java.util.Objects;

/**
 * One participant of an election, as its node tells it.
 *
 * @param id the id the participant gave (its node's data, UTF-8)
 * @param isLeader true for the participant whose node is first in the queue
 */
public record Participant(String id, boolean isLeader) {
  public Participant {
    Objects.requireNonNull(id, "id");
  }

  /** The id, by Curator's name for it. */
  public String getId() {
    return id;
  }
}
