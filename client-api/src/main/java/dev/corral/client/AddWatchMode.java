package dev.corral.client;

/** Kinds of persistent watch. */
public enum AddWatchMode {
  /** Every event on one path; stays until removed. */
  PERSISTENT,
  /** Created / deleted / data-changed events on a path and all its descendants. */
  PERSISTENT_RECURSIVE
}
