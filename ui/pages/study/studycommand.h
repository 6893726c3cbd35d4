// The GUI executable's study modes (docs/study.md), parsed before the main window's command line:
//   ascviz --render-study-trial STUDY.json --participant ID --trial K --png OUT [--size WxH]
//       what that participant sees in trial K (0-based) as PNG; `ascviz-cli study render` runs this, so the
//       CLI links no Qt. Runs on any Qt platform (the CLI sets QT_QPA_PLATFORM=offscreen).
//   ascviz --run-study STUDY.json --participant ID [--responses FILE] [--windowed]
//       participant mode straight away (full screen), resuming that participant; the study's exit key ends it.
#pragma once

namespace ascviz::ui {

bool isStudyCommand(int argc, char** argv);
// Makes its own QApplication; returns the exit status (0, 1 failure with a line on stderr, 2 usage).
int runStudyCommand(int argc, char** argv);

} // namespace ascviz::ui
