/**
 * Leader election over a {@link dev.corral.client.CoordinationClient}, in the
 * shapes Apache Curator users know: {@link dev.corral.recipes.election.LeaderLatch}
 * (a participant is leader until it leaves or loses its connection) and
 * {@link dev.corral.recipes.election.LeaderSelector} (participants take turns
 * running {@code takeLeadership}).
 *
 * <p>Both queue their participants as protected ephemeral-sequential nodes
 * under the election path (missing ancestors are created as containers), with
 * the participant's id as data. The lowest sequence leads; every other
 * participant watches only the node just before its own, so a change wakes one
 * participant, not the herd. A participant leads only while its node is first
 * and owned by the client's current session ({@code Stat.ephemeralOwner ==
 * client.sessionId()}), and only while connected.
 */
package dev.corral.recipes.election;
