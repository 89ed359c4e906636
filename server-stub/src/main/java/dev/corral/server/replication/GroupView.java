package dev.corral.server.replication;

import java.util.List;

/**
 * Where one member stands in its Raft group, as it sees it now.
 *
 * @param memberId this member's id
 * @param role leader, follower, candidate, or unknown (not running)
 * @param term the current Raft term
 * @param leaderId the leader this member follows (itself when leading); empty when none is known
 * @param members the ids of every member, this one included
 */
public record GroupView(String memberId, Role role, long term, String leaderId, List<String> members) {
  /** A member's role in the group. */
  public enum Role { LEADER, FOLLOWER, CANDIDATE, UNKNOWN }

  public GroupView {
    members = List.copyOf(members);
  }
}
