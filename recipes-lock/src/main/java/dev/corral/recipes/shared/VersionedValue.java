package dev.corral.recipes.shared;

/**
 * A value as read from its node, with the node's data version: what
 * {@link SharedCount#trySetCount} compares against, as Curator's.
 *
 * @param version the node's data version when {@code value} was read or written
 * @param value the value
 */
public record VersionedValue<T>(int version, T value) {
  /** Curator's name for {@link #version()}. */
  public int getVersion() {
    return version;
  }

  /** Curator's name for {@link #value()}. */
  public T getValue() {
    return value;
  }
}
