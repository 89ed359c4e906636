package dev.corral.client;

import java.time.Duration;
import java.util.Objects;

/**
 * How to create a node: its mode, a TTL for the TTL modes, whether missing
 * parents are created (and as what), and protection.
 *
 * <p><b>Protection</b> (as Curator's {@code withProtection()}): the node's name
 * gets a per-attempt GUID prefix ({@code _c_<guid>-}). If the reply to the
 * create is lost with the connection, the client lists the parent and adopts
 * the node carrying its GUID instead of creating a second one. Use it for
 * every sequential create whose node must exist exactly once (locks, latches).
 *
 * @param mode the node's mode
 * @param ttl time to live for the TTL modes; {@link Duration#ZERO} otherwise
 * @param parents what to create missing ancestors as
 * @param protection whether to name the node with a GUID prefix (see above)
 */
public record CreateOptions(CreateMode mode, Duration ttl, Parents parents, boolean protection) {
  /** What to do about missing ancestors of the node. */
  public enum Parents {
    /** A missing parent fails the create with NoNode. */
    NONE,
    /** Missing ancestors are created as persistent nodes, in the same change. */
    PERSISTENT,
    /** Missing ancestors are created as containers (gone with their last child), in the same change. */
    CONTAINER
  }

  public CreateOptions {
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(ttl, "ttl");
    Objects.requireNonNull(parents, "parents");
    if (mode.hasTtl() && (ttl.isZero() || ttl.isNegative())) {
      throw new IllegalArgumentException(mode + " needs a positive ttl");
    }
    if (!mode.hasTtl() && !ttl.isZero()) {
      throw new IllegalArgumentException("a ttl is only for the *_WITH_TTL modes, not " + mode);
    }
  }

  /** Plain options for {@code mode} (no TTL, no parents, no protection). */
  public static CreateOptions of(CreateMode mode) {
    return new CreateOptions(mode, Duration.ZERO, Parents.NONE, false);
  }

  /** A builder starting from {@code mode}. */
  public static Builder builder(CreateMode mode) {
    return new Builder(mode);
  }

  /** Builds {@link CreateOptions}. */
  public static final class Builder {
    private final CreateMode mode;
    private Duration ttl = Duration.ZERO;
    private Parents parents = Parents.NONE;
    private boolean protection;

    private Builder(CreateMode mode) {
      this.mode = mode;
    }

    /** The TTL, for the TTL modes. */
    public Builder ttl(Duration ttl) {
      this.ttl = ttl;
      return this;
    }

    /** Creates missing ancestors as persistent nodes. */
    public Builder creatingParents() {
      return parents(Parents.PERSISTENT);
    }

    /** Creates missing ancestors as containers (Curator's creatingParentContainersIfNeeded). */
    public Builder creatingParentContainers() {
      return parents(Parents.CONTAINER);
    }

    private Builder parents(Parents parents) {
      if (this.parents != Parents.NONE) {
        throw new IllegalStateException("parents were already set to " + this.parents);
      }
      this.parents = parents;
      return this;
    }

    /** Names the node with a per-attempt GUID prefix (see {@link CreateOptions}). */
    public Builder withProtection() {
      this.protection = true;
      return this;
    }

    public CreateOptions build() {
      return new CreateOptions(mode, ttl, parents, protection);
    }
  }
}
