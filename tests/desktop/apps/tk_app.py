"""A Tk app for the OCR tests: Tk exposes no accessibility tree. A line of words above a big button; clicking the
button renames the window."""

import tkinter as tk


def main() -> None:
    root = tk.Tk()
    root.title("Tk Test App")
    root.geometry("360x200")

    def pressed() -> None:
        root.title("Tk Pressed")

    tk.Label(root, text="Nothing here has a tree", font=("DejaVu Sans", 16)).pack(pady=(16, 0))
    tk.Button(root, text="Launch", font=("DejaVu Sans", 22), command=pressed).pack(expand=True)
    root.mainloop()


if __name__ == "__main__":
    main()
