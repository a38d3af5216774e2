#include "report/text_table.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace ironbench::report {
namespace {

// Display width in columns, counting UTF-8 continuation bytes as zero.
std::size_t display_width(const std::string& text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string escape_markdown(const std::string& text) {
  std::string escaped;
  for (const char c : text) {
    if (c == '|') escaped += '\\';
    if (c == '\n') {
      escaped += ' ';
      continue;
    }
    escaped += c;
  }
  return escaped;
}

}  // namespace

void text_table::add_column(std::string header, align alignment) {
  IRONBENCH_CHECK(rows_.empty(), "columns must be added before rows");
  headers_.push_back(std::move(header));
  alignments_.push_back(alignment);
}

void text_table::add_row(std::vector<std::string> cells) {
  IRONBENCH_CHECK(cells.size() == headers_.size(), "row width differs from the header");
  rows_.push_back(std::move(cells));
}

void text_table::render_text(std::ostream& out) const {
  std::vector<std::size_t> widths(headers_.size());
  for (std::size_t c = 0; c < headers_.size(); ++c) {
    widths[c] = display_width(headers_[c]);
    for (const auto& row : rows_) widths[c] = std::max(widths[c], display_width(row[c]));
  }
  auto print_row = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const auto pad = std::string(widths[c] - display_width(cells[c]), ' ');
      if (c > 0) line += "  ";
      line += alignments_[c] == align::right ? pad + cells[c] : cells[c] + pad;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  };
  print_row(headers_);
  std::vector<std::string> rule;
  for (const auto w : widths) rule.emplace_back(w, '-');
  print_row(rule);
  for (const auto& row : rows_) print_row(row);
}

void text_table::render_markdown(std::ostream& out) const {
  auto print_row = [&](const std::vector<std::string>& cells) {
    out << '|';
    for (const auto& cell : cells) out << ' ' << escape_markdown(cell) << " |";
    out << '\n';
  };
  print_row(headers_);
  out << '|';
  for (const auto a : alignments_) out << (a == align::right ? " ---: |" : " --- |");
  out << '\n';
  for (const auto& row : rows_) print_row(row);
}

}  // namespace ironbench::report
