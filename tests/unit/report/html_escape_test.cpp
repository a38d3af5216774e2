#include "report/html_escape.hpp"

#include <gtest/gtest.h>

namespace ironbench::report {
namespace {

TEST(HtmlEscape, EscapesMarkupInText) {
  EXPECT_EQ(escape_html("<script>alert('x') & \"y\"</script>"),
            "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;");
  EXPECT_EQ(escape_html("plain host-01"), "plain host-01");
}

TEST(HtmlEscape, JsonCannotCloseItsScriptElement) {
  const json document = {{"model", "</script><script>alert(1)</script>"}, {"sep", "a\u2028b"}, {"amp", "&"}};
  const auto text = json_for_script(document);
  EXPECT_EQ(text.find('<'), std::string::npos) << text;
  EXPECT_EQ(text.find('>'), std::string::npos) << text;
  EXPECT_EQ(text.find('&'), std::string::npos) << text;
  EXPECT_EQ(text.find("\xe2\x80\xa8"), std::string::npos) << text;
  EXPECT_EQ(json::parse(text), document);  // still the same JSON
}

}  // namespace
}  // namespace ironbench::report
