// The HTML page of `openge compare`: what it holds, checked on a comparison made
// by hand. Plot coordinates are worked out by hand from the geometry the page documents (plot
// x from 80 to 1080, panels 180 high, the error panel's top at 28 + 180 + 56 = 264).
#include <gtest/gtest.h>

#include <cmath>

#include "openge/dump_compare.h"
#include "dump/dump_test_util.h"

namespace openge::dump::testing {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

OpComparison row(const std::string& name, const std::string& type, double cosine, double rel, bool exceeds) {
  OpComparison r;
  r.iteration = "0";
  r.op_name = name;
  r.op_type = type;
  r.shape = "2";
  r.cosine = cosine;
  r.max_rel_error = rel;
  r.max_abs_error = rel * 4;
  r.exceeds = exceeds;
  return r;
}

CompareResult hand_made() {
  CompareResult r;
  r.dir_a = "dumps/fp32";
  r.dir_b = "dumps/<mixed>";
  r.threshold = 0.01;
  r.rows = {row("conv1", "Conv", 1.0, 0.0, false), row("mat<b>&\"mul", "MatMul", 0.999, 0.02, true),
            row("add", "Add", 0.9, 0.5, true)};
  r.first_exceeding = 1;
  r.only_in_a = 2;
  r.ops_only_in_a = {"Cast 'cast<1>' (iteration 0)", "Cast 'cast2' (iteration 0)"};
  return r;
}

TEST(CompareReport, IssueTen_9_PageHoldsPlotTableAndTheFirstOpOverTheThreshold) {
  const std::string html = comparison_html(hand_made());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<title>OpenGE dump comparison: dumps/fp32 vs dumps/&lt;mixed&gt;</title>"), std::string::npos);
  // One table row per compared output; the first one over the threshold marked.
  EXPECT_EQ(count(html, "<tr id=r"), 3u);
  // The ops without a partner by name, escaped; no list for a side that has none.
  EXPECT_NE(html.find("<dd class=only-in-A>Cast 'cast&lt;1&gt;' (iteration 0), Cast 'cast2' (iteration 0)</dd>"),
            std::string::npos);
  EXPECT_EQ(html.find("only-in-B"), std::string::npos);
  EXPECT_NE(html.find("<tr id=r1 class=\"over first\">"), std::string::npos);
  EXPECT_NE(html.find("<tr id=r2 class=over>"), std::string::npos);
  EXPECT_NE(html.find("<p id=verdict class=bad>First op over the threshold: <a href=\"#r1\">#2</a>"),
            std::string::npos);
  // Two panels (cosine, relative error), one point per output in each, those over in red.
  EXPECT_EQ(count(html, "<circle "), 6u);
  EXPECT_EQ(count(html, "class=\"pt over\""), 4u);
  EXPECT_EQ(count(html, "<polyline "), 2u);
  // Threshold 0.01 on the log axis 1e-3 .. 1e0: one third up from the bottom (264 + 180 * 2/3).
  EXPECT_NE(html.find("<line id=threshold class=threshold x1=\"80.00\" y1=\"384.00\""), std::string::npos) << html;
  // Op 2 of 3 sits in the middle of the x axis; the marker runs from the top panel to the bottom one.
  EXPECT_NE(
      html.find("<g id=first-exceeding><line class=first x1=\"580.00\" y1=\"28.00\" x2=\"580.00\" y2=\"444.00\"/>"),
      std::string::npos);
  // rel error 0.02: log10 = -1.69897, (3 - 1.69897) / 3 up the panel: y = 264 + 180 * 0.566323 = 365.94.
  EXPECT_NE(html.find("cx=\"580.00\" cy=\"365.94\""), std::string::npos);
  // Model names are text, never markup; nothing is fetched and nothing runs.
  EXPECT_NE(html.find("mat&lt;b&gt;&amp;&quot;mul"), std::string::npos);
  EXPECT_EQ(html.find("mat<b>"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http"), std::string::npos);
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_NE(html.find("3 outputs (2 ops only in A, 0 only in B)"), std::string::npos);
}

TEST(CompareReport, IssueTen_9_NoDeviationSaysSoAndMarksNothing) {
  CompareResult r = hand_made();
  r.first_exceeding.reset();
  for (auto& x : r.rows) x.exceeds = false;
  const std::string html = comparison_html(r);
  EXPECT_NE(html.find("<p id=verdict class=good>No op exceeds the threshold 0.01.</p>"), std::string::npos);
  EXPECT_EQ(html.find("first-exceeding"), std::string::npos);
  EXPECT_EQ(count(html, "class=\"pt over\""), 0u);
}

TEST(CompareReport, IssueTen_9_InfAndNotComparableSitOnTheCeiling) {
  CompareResult r = hand_made();
  r.rows[2].max_rel_error = INFINITY;
  r.rows[2].note = "Inf/NaN differ";
  const std::string html = comparison_html(r);
  // Point 3 of 3 at x = 1080 on the error panel's top edge (y = 264).
  EXPECT_NE(html.find("cx=\"1080.00\" cy=\"264.00\""), std::string::npos);
  EXPECT_NE(html.find(">inf</td>"), std::string::npos);
}

TEST(CompareReport, IssueTen_9_FilesAreWrittenTogetherOrNotAtAll) {
  EXPECT_EQ(comparison_html_path("out/cmp.csv", ""), "out/cmp.html");
  EXPECT_EQ(comparison_html_path("out/cmp", ""), "out/cmp.html");
  EXPECT_EQ(comparison_html_path("out/cmp.csv", "page.html"), "page.html");
  EXPECT_EQ(comparison_html_path("", ""), "");
  const std::string dir = scratch_dir("cmp_report_files");
  const CompareResult r = hand_made();
  auto page = write_comparison_files(r, dir + "/c.csv", "");
  ASSERT_TRUE(page.ok()) << page.status().message();
  EXPECT_EQ(*page, dir + "/c.html");
  EXPECT_EQ(read_text(dir + "/c.csv"), comparison_csv(r));
  EXPECT_EQ(read_text(dir + "/c.html"), comparison_html(r));
  // The page alone (the CLI printing its CSV).
  page = write_comparison_files(r, "", dir + "/only.html");
  ASSERT_TRUE(page.ok());
  EXPECT_TRUE(fs::exists(dir + "/only.html"));
  // The page's folder does not exist: an error naming it, and no CSV left behind.
  page = write_comparison_files(r, dir + "/d.csv", dir + "/missing/d.html");
  ASSERT_FALSE(page.ok());
  EXPECT_NE(page.status().message().find("missing/d.html"), std::string::npos) << page.status().message();
  EXPECT_FALSE(fs::exists(dir + "/d.csv"));
  EXPECT_FALSE(write_comparison_files(r, dir + "/e.csv", dir + "/e.csv").ok());
  EXPECT_FALSE(fs::exists(dir + "/e.csv"));
}

}  // namespace
}  // namespace openge::dump::testing
