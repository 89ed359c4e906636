package dev.corral.server.tree;

import dev.corral.proto.v1.CreateMode;

/** What each {@link CreateMode} implies. */
final class Modes {
  private Modes() {}

  static boolean isSequential(CreateMode mode) {
    return mode == CreateMode.PERSISTENT_SEQUENTIAL
        || mode == CreateMode.EPHEMERAL_SEQUENTIAL
        || mode == CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL;
  }

  static boolean isEphemeral(CreateMode mode) {
    return mode == CreateMode.EPHEMERAL || mode == CreateMode.EPHEMERAL_SEQUENTIAL;
  }

  static boolean isTtl(CreateMode mode) {
    return mode == CreateMode.PERSISTENT_WITH_TTL || mode == CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL;
  }

  static boolean isContainer(CreateMode mode) {
    return mode == CreateMode.CONTAINER;
  }

  /** Modes that missing ancestors may be created with ({@code parent_mode}). */
  static boolean isParentMode(CreateMode mode) {
    return mode == CreateMode.PERSISTENT || mode == CreateMode.CONTAINER;
  }
}
