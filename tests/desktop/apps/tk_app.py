"""A Tk app for the OCR fallback test: Tk exposes no accessibility tree. Clicking the big button renames the window."""

import tkinter as tk


def main() -> None:
    root = tk.Tk()
    root.title("Tk Test App")
    root.geometry("360x200")

    def pressed() -> None:
        root.title("Tk Pressed")

    tk.Button(root, text="Launch", font=("DejaVu Sans", 22), command=pressed).pack(expand=True)
    root.mainloop()


if __name__ == "__main__":
    main()
