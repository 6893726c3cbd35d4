// How the GUI words an error from core: its what() and, when core says what the user can do about it
// (ErrorContext::remedy, base/error.h), that remedy in the GUI's own words — its buttons and choices, never
// a command-line flag (the CLI phrases the same remedy as its flags: app/cli/common.h remedyForCli).
#pragma once
#include "ascviz/base/error.h"

#include <QString>

#include <exception>

namespace ascviz::ui {

// The remedy as the GUI says it: "press Resume to continue it", "choose another results file", both joined
// with ", or "; empty for Remedy::None.
QString remedyForGui(Remedy remedy);

// The message to show for an exception caught from core: what() in the GUI's words (guiWording), then "; " and
// the remedy when it is an ascviz::Error that names one.
QString errorMessage(const std::exception& e);

// A core message as the GUI shows it: no hex checksums (a corpus whose content changed is said in words, any
// other run of 16+ hex digits becomes "(checksum)") and no command-line options (--db FILE: "the results file
// FILE"; --resume: "Resume"; the advice to raise --max-ast-depth or --max-ast-nodes, which the GUI has not,
// left out).
QString guiWording(const QString& message);

} // namespace ascviz::ui
