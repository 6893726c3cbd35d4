// The Batch page and stored runs (issue 28): choosing a results file with an unfinished run fills the form with
// the run's corpus, model and θ and Resume continues it with them; a finished run offers no Resume; messages
// carry no command-line options and no hex checksums; closing the window during a run asks first.
#include "testdata.h"

#include "common/errortext.h"
#include "mainwindow.h"
#include "pages/batch/batchpage.h"
#include "pages/batch/batchrunner.h"
#include "services/modelservice.h"
#include "services/resultstore.h"

#include "ascviz/results/resultsdb.h"

#include <QApplication>
#include <QComboBox>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace ascviz;
using namespace ascviz::ui;

namespace {

QString tinyModel()
{
    return QString::fromStdString((testdata::dataDir() / "fixtures" / "models" / "tiny-gpt2").string());
}
QString sample()
{
    return QString::fromStdString((testdata::resourcesDir() / "corpus" / "stdlib-functions.jsonl").string());
}
struct Services {
    ModelService models;
    ResultStore results{models.jobs()};
};
const QRegularExpression kHex(QStringLiteral("[0-9a-fA-F]{16,}"));

} // namespace

class TestBatchResume : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("AsC-Viz-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("test_ui_batchresume"));
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.filePath(QStringLiteral("settings")));
    }

    void resumeFillsTheStoredRun()
    {
        const QString db = m_dir.filePath(QStringLiteral("stopped.db"));
        {
            // An unfinished run: θ = max over 200 snippets, cancelled at the first progress report (200, so that
            // the run cannot finish before the GUI thread sees a report, however fast the machine).
            Services services;
            BatchPage tab(&services.models, &services.results);
            tab.setCorpusPath(sample());
            tab.setModelDir(tinyModel());
            tab.setDbPath(db);
            tab.setLimit(200);
            QComboBox* theta = nullptr;
            for (QComboBox* b : tab.findChildren<QComboBox*>())
                if (b->findText(QStringLiteral("max")) >= 0 && b->findText(QStringLiteral("median")) >= 0)
                    theta = b;
            QVERIFY(theta);
            theta->setCurrentText(QStringLiteral("max"));
            QSignalSpy finished(&tab, &BatchPage::runFinished);
            bool cancelled = false;
            connect(tab.progressBar(), &QProgressBar::valueChanged, &tab, [&](int v) {
                if (v >= 1 && !cancelled) {
                    cancelled = true;
                    tab.cancel();
                }
            });
            tab.start();
            QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
            QVERIFY(cancelled);
        }
        QVERIFY(incompleteBatchRun(db.toStdString()));

        // A new page whose form holds other settings: choosing the file fills in the stored run's.
        Services services;
        BatchPage tab(&services.models, &services.results);
        tab.setCorpusPath(QStringLiteral("/elsewhere/other.jsonl"));
        tab.setModelDir(QStringLiteral("/elsewhere/model"));
        tab.setDbPath(db);
        QVERIFY(tab.fillFromStoredRun());
        QCOMPARE(tab.corpusPath(), sample());
        QCOMPARE(QFileInfo(tab.modelDir()).canonicalFilePath(), QFileInfo(tinyModel()).canonicalFilePath());
        QComboBox* theta = nullptr;
        for (QComboBox* b : tab.findChildren<QComboBox*>())
            if (b->findText(QStringLiteral("max")) >= 0 && b->findText(QStringLiteral("median")) >= 0)
                theta = b;
        QCOMPARE(theta->currentText(), QStringLiteral("max"));
        QVERIFY2(tab.statusText().contains(QLatin1String("unfinished run")), qPrintable(tab.statusText()));
        QVERIFY(tab.canResume());

        // Resume from a form changed again: it continues with the stored settings.
        theta->setCurrentText(QStringLiteral("median"));
        QSignalSpy finished(&tab, &BatchPage::runFinished);
        tab.resume();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
        QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));
        const auto stored = ResultsDb::open(db.toStdString());
        QCOMPARE(stored.counts().snippets, 200);
        QVERIFY(stored.runInfo().aggregation == Aggregation::Max);
        QCOMPARE(theta->currentText(), QStringLiteral("max"));

        // A finished run: no Resume anywhere, and Start says only what can be done.
        QVERIFY(!tab.canResume());
        QVERIFY(!tab.fillFromStoredRun());
        QVERIFY2(!tab.statusText().contains(QLatin1String("Resume")), qPrintable(tab.statusText()));
        tab.start();
        QVERIFY(!tab.isRunning());
        const QString refusal = tab.statusText();
        QVERIFY2(refusal.contains(QLatin1String("choose another results file")), qPrintable(refusal));
        QVERIFY2(!refusal.contains(QLatin1String("Resume")), qPrintable(refusal));
        QVERIFY(!refusal.contains(QLatin1String("--")));
        QVERIFY(!refusal.contains(kHex));
    }

    void messagesInTheGuisWords()
    {
        const QString core = QStringLiteral(
            "cannot resume /r/x.db: corpus content (fingerprint) is '0123456789abcdef0123' in the DB but "
            "'fedcba9876543210fedc' now; model is 'a' in the DB but 'b' now (use --db NEW or --resume)");
        const QString gui = guiWording(core);
        QVERIFY2(!gui.contains(kHex), qPrintable(gui));
        QVERIFY(!gui.contains(QLatin1String("--")));
        QVERIFY(gui.contains(QLatin1String("the corpus file's content is not the content the run stored")));
        QVERIFY(gui.contains(QLatin1String("model is 'a' in the DB but 'b' now")));
        QVERIFY(gui.contains(QLatin1String("the results file NEW or Resume")));
        QCOMPARE(guiWording(QStringLiteral("weights sha 00ff00ff00ff00ff00ff differ")),
                 QStringLiteral("weights sha (checksum) differ"));
        QCOMPARE(guiWording(QStringLiteral("id cafe1234 is short")), QStringLiteral("id cafe1234 is short"));
    }

    void closingDuringARunAsks()
    {
        MainWindow w;
        w.show();
        auto* tab = w.page<BatchPage>();
        tab->setCorpusPath(sample());
        tab->setModelDir(tinyModel());
        tab->setDbPath(m_dir.filePath(QStringLiteral("quit.db")));
        tab->start();
        tab->pause(); // held after its current snippet: still running
        QVERIFY(tab->isRunning());
        QString asked;
        const auto answer = [&asked](const QString& buttonText) {
            QTimer::singleShot(0, [&asked, buttonText] {
                auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
                QVERIFY(box);
                asked = box->text();
                for (QAbstractButton* b : box->buttons())
                    if (b->text() == buttonText)
                        b->click();
            });
        };
        answer(QStringLiteral("Cancel"));
        QVERIFY(!w.close());
        QVERIFY(tab->isRunning());
        QVERIFY2(asked.contains(QLatin1String("A batch run into quit.db is still running")), qPrintable(asked));
        QVERIFY(asked.contains(QLatin1String("resumed")));
        if (const QByteArray shots = qgetenv("ASCVIZ_SCREENSHOT_DIR"); !shots.isEmpty()) {
            QTimer::singleShot(0, [shots] {
                auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
                QVERIFY(box);
                box->grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/quit-during-batch.png"));
                box->reject();
            });
            QVERIFY(!w.close());
        }
        answer(QStringLiteral("Stop and quit"));
        QVERIFY(w.close());
        QTRY_VERIFY_WITH_TIMEOUT(!tab->isRunning(), 60000);
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestBatchResume)
#include "test_batchresume.moc"
