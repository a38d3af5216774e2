// A pairwise sweep (`collectives --pairs`, settings.pairwise of its run) for people: the
// node x node bandwidth matrices in the console, and in the HTML report as heat maps, with the
// slow node or link named. Both read the run's JSON, so a stored run reports as a fresh one.
#pragma once

#include <ostream>

#include "core/json.hpp"
#include "report/html_report.hpp"

namespace ironbench::report {

/// The sweep's heading line, one matrix per size (one way, GB/s; row sends to column), the
/// median link, the nodes and links named, and the wrong bytes.
void write_pairwise_console(std::ostream& out, const json& pairwise);

/// One <h3> and heat map (a table whose cells are shaded by their ratio to the median link)
/// per size, with the findings above; nothing when `pairwise` is not an object.
void write_pairwise_html(std::ostream& out, const json& pairwise, const std::string& heading);

/// "Pairwise bandwidth" (h2) and write_pairwise_html for every run of `input` with
/// settings.pairwise; nothing when none has.
void write_pairwise_sections(std::ostream& out, const html_report_input& input);

/// The background colour of a cell at `ratio` x the median: red at 0.5 and below, through
/// yellow, to green at 1 and above ("hsl(H, 70%, 80%)").
[[nodiscard]] std::string heat_colour(double ratio);

}  // namespace ironbench::report
