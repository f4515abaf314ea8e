/**
 * The agent's in-memory history: fixed-size rings of each server's and GPU's key values, recorded
 * at every refresh and read back as {@code /api/history}'s document ({@link
 * dev.gputop.agent.history.History}). Bounded in servers, GPUs and points; depends on no other
 * package of the agent.
 */
package dev.gputop.agent.history;
