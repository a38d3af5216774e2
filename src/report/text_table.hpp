// A plain table of strings rendered as aligned text (console) or as a Markdown table.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace ironbench::report {

class text_table {
 public:
  enum class align { left, right };

  void add_column(std::string header, align alignment = align::right);
  /// Adds a row; it must have one cell per column.
  void add_row(std::vector<std::string> cells);

  [[nodiscard]] bool empty() const { return rows_.empty(); }

  /// Columns padded to their widest cell, two spaces apart, header underlined with '-'.
  void render_text(std::ostream& out) const;
  /// GitHub-flavoured Markdown; '|' in cells is escaped.
  void render_markdown(std::ostream& out) const;

 private:
  std::vector<std::string> headers_;
  std::vector<align> alignments_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace ironbench::report
