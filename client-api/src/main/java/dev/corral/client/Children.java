package dev.corral.client;

import java.util.List;

/**
 * A node's children (names, not paths, sorted) with the parent's Stat.
 *
 * @param names child names in byte order of their UTF-8 encoding
 * @param stat the parent's Stat
 */
public record Children(List<String> names, Stat stat) {
  public Children {
    names = List.copyOf(names);
  }
}
