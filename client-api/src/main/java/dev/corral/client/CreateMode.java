package dev.corral.client;

/** How a node is created, as ZooKeeper's CreateMode. */
public enum CreateMode {
  /** Stays until deleted. */
  PERSISTENT(false, false, false),
  /** Deleted when the creating session ends; cannot have children. */
  EPHEMERAL(true, false, false),
  /** PERSISTENT with a 10-digit counter of the parent appended to the name. */
  PERSISTENT_SEQUENTIAL(false, true, false),
  /** EPHEMERAL with the sequential suffix. */
  EPHEMERAL_SEQUENTIAL(true, true, false),
  /** Deleted by the server once its last child is deleted. */
  CONTAINER(false, false, false),
  /** PERSISTENT, deleted once its TTL passes with no change and no children. */
  PERSISTENT_WITH_TTL(false, false, true),
  /** PERSISTENT_WITH_TTL with the sequential suffix. */
  PERSISTENT_SEQUENTIAL_WITH_TTL(false, true, true);

  private final boolean ephemeral;
  private final boolean sequential;
  private final boolean ttl;

  CreateMode(boolean ephemeral, boolean sequential, boolean ttl) {
    this.ephemeral = ephemeral;
    this.sequential = sequential;
    this.ttl = ttl;
  }

  /** True for modes whose node goes with its session. */
  public boolean isEphemeral() {
    return ephemeral;
  }

  /** True for modes that append a sequence number to the name. */
  public boolean isSequential() {
    return sequential;
  }

  /** True for modes that need a TTL. */
  public boolean hasTtl() {
    return ttl;
  }

  /** True for CONTAINER. */
  public boolean isContainer() {
    return this == CONTAINER;
  }
}
