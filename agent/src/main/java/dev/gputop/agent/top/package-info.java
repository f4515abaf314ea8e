/**
 * The terminal view of a snapshot: {@link dev.gputop.agent.top.TopScreen} lays out {@code top}'s
 * table, detail pane and history sparklines for a width from the typed views {@link
 * dev.gputop.agent.top.SnapshotView} and {@link dev.gputop.agent.top.HistoryView} (the agent's
 * documents read leniently, by {@code Lenient}), and {@link
 * dev.gputop.agent.top.Cells} writes a snapshot's values the way every terminal view shows them
 * (the demo's table too). Reading the terminal and fetching the documents are the {@code top}
 * command's.
 */
package dev.gputop.agent.top;
