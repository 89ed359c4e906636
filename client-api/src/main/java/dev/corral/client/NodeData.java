package dev.corral.client;

import java.util.Arrays;
import java.util.Objects;

/**
 * A node's data with its Stat at the time of the read.
 *
 * @param data the bytes (a defensive copy is made on the way in and out)
 * @param stat the node's Stat
 */
public record NodeData(byte[] data, Stat stat) {
  public NodeData {
    data = data.clone();
    Objects.requireNonNull(stat, "stat");
  }

  @Override
  public byte[] data() {
    return data.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof NodeData other && Arrays.equals(data, other.data) && stat.equals(other.stat);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(data) + stat.hashCode();
  }

  @Override
  public String toString() {
    return "NodeData[" + data.length + " bytes, " + stat + "]";
  }
}
